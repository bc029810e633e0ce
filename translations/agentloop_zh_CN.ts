<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AgentLoop::AgentController</name>
    <message>
        <source>Agent exceeded maxTurns=%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model kept calling tools without reaching an answer. Give a more specific prompt, or check the setup with a simple command first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model output reached the token limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The answer was cut off (finish_reason=length). Ask for a shorter output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s content filter stopped the answer (finish_reason=content_filter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rephrase the task; the provider will not produce this output.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsupported finish_reason: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is not fully compatible with Chat Completions. Try another provider or model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model sent two tool calls with the same id %1; none was run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is a provider bug. Try again, or try another model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model returned neither text nor a tool call</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An empty answer is never treated as success. Try again, or try another model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped by the user.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatClient</name>
    <message>
        <source>Network error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing is listening at %1. Check the base URL and that the server is running.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The host name %1 could not be resolved. Check the base URL and your network connection.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The TLS handshake failed. Check the base URL&apos;s scheme (http or https) and the server&apos;s certificate.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider closed the connection before answering. Try again; if it keeps happening, check proxies between you and the provider.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check the base URL and your network connection.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider sent nothing for %1 s; the request was given up.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model may be overloaded: try again, or raise the request timeout in the settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model list is not the expected JSON ({&quot;data&quot;: [...]}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Cli</name>
    <message>
        <source>Runs one task through the agent loop: the model may ask to run shell commands, each of which you approve at this terminal.

Settings come from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL in the environment or in a .env file in the current directory.

Exit codes: 0 answered; 2 usage or configuration error (nothing sent); 3 agent failure; 4 provider or network error; 130 interrupted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show this help.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the version.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The task for the agent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder commands run in (default: the current directory).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>dir</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The most model requests for this task (default: 20).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>n</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seconds the provider may stay silent before a request is given up (default: 120).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>seconds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write every request and response as JSON Lines to this file (the API key is redacted).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try --help for usage.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unknown argument: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--prompt is required and must not be blank.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--max-turns must be a whole number from 1 to 1000, not &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--request-timeout must be a whole number of seconds from 1 to 86400, not &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The workspace %1 is not a folder that exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Configuration error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How to fix: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Cli::CliRun</name>
    <message>
        <source>[turn %1/%2] asking %3…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 finished: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 did not succeed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Interrupted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Configuration error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How to fix: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Cli::TerminalApprover</name>
    <message>
        <source>Tool call needs approval: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arguments: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No interactive input; the call is denied by default.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow this call? [y/N] </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No answer; the call is denied.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Completion</name>
    <message>
        <source>The provider answered with an HTML page instead of JSON.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A proxy, a login page or a wrong base URL answered. Check that the base URL points at the API (it usually ends in /v1).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s response is not JSON (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is probably not an OpenAI-compatible Chat Completions API. Check the base URL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The API key is invalid or has no access: check OPENAI_API_KEY and that this key can use OPENAI_MODEL.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The base URL path is wrong: most often /v1 is missing (for example https://api.openai.com/v1). A model name this key cannot see also gives 404.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider rejected the request: check the model name and that the model supports tool calling.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider took too long: try again, or raise the request timeout.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate limit or quota reached: wait a moment and try again, or check the plan of this key.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider had a problem of its own: try again in a moment.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>an HTML page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider reported an error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request reached the provider but it could not answer it; read its message above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s response has no choices: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is probably not fully compatible with Chat Completions: try another provider or model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s first choice has no message: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Config</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL must be an http:// or https:// URL, for example https://api.openai.com/v1 (got &quot;%1&quot;).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL must not end with /chat/completions: the client appends /chat/completions itself, so the request would go to .../chat/completions/chat/completions. Use the part before it, for example https://api.openai.com/v1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL does not end with /v1; most providers expect it (for example https://api.openai.com/v1). A 404 from the provider usually means it is missing.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Missing required settings: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set them in the environment or in a .env file in %1 (KEY=value, one per line; a value of only spaces counts as missing).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DemoProvider</name>
    <message>
        <source>Operation canceled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The offline demo has no %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::AppSettings</name>
    <message>
        <source>Set by %1 in %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set by %1 in the environment</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::ApprovalPrompt</name>
    <message>
        <source>Approve tool call?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approve tool call</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;p&gt;The model asks to run the tool &lt;b&gt;%1&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;%2&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing runs unless you choose Yes. No, Esc or closing this box declines, and the model is told.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The model asks to run the tool %1. %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Arguments of the tool call</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::ChatDelegate</name>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool call: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied: %1 did not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Show all (%n lines)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Show less</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Message text</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::ChatModel</name>
    <message>
        <source>Your prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tool call: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result of %1, exit code %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Result of %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied: %1 did not run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notice</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::ChatView</name>
    <message>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy &amp;message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy c&amp;ommand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;less</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select &amp;text…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in &amp;inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select &amp;all</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::Inspector</name>
    <message>
        <source>Copy &amp;request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy re&amp;sponse</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as c&amp;url</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Wrap lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Response body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request and response headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a request above to see the exact JSON that was sent.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a request above to see the exact JSON that came back.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a request above to see its HTTP headers.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON tree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON shown in the tree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;how:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Headers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the request body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the response body</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy a curl command that sends this request again; the key is written as $OPENAI_API_KEY</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrap long lines of the bodies and headers instead of scrolling sideways</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No request selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the response…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run was stopped before a response arrived.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The response had no body.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no HTTP answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request %1 · %2 %3 · %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(waiting for the response)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(stopped before a response arrived)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No HTTP answer: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::JsonTreeModel</name>
    <message>
        <source>object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>array</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>string</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>number</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>boolean</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>null</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::KeyStore</name>
    <message>
        <source>This build of Agent Loop has no credential store support.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The credential store is turned off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The credential store did not answer within %1 s.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::MainWindow</name>
    <message>
        <source>&amp;Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demo mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tell the agent what to do. Enter sends, Shift+Enter starts a new line.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Send the prompt (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the run: abort the request or kill the running command (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear the conversation and its history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Inspector</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide the raw requests and responses of every turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Agent Loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent status</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Answers come from a built-in scripted model: nothing is sent over the network. Open File › Settings to connect a real provider.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This is the offline demo: a built-in scripted model answers, nothing goes over the network. Ask it anything, for example “What files are in my workspace?”, and watch one trip around the agent loop.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tell the agent what to do. It shows you every command before it runs and runs it only after you say yes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent Loop — Demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent Loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set a base URL, an API key and a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Agent Loop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;Agent Loop %1&lt;/h3&gt;&lt;p&gt;A desktop coding agent for OpenAI-compatible Chat Completions endpoints.&lt;/p&gt;&lt;p&gt;It sends your task with its tools to the model, shows you every command the model wants to run, runs it only after your yes, and feeds the result back, until the model answers. Every request and response is in the inspector.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for the model… %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Awaiting your approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Running %1… %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::SettingsDialog</name>
    <message>
        <source>Show the key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the folder the agent works in.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder %1 does not exist.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key storage: not stored; %1 supplies it at every start.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key storage: Settings file (plain text)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key storage: System credential store</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key storage: This session only — no credential store is reachable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Key storage: checking the system credential store…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warning: anyone who can read %1 can read the key. Use it only on a machine you trust.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not needed: the system credential store keeps the key safe.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide the key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asking %1 for its models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected: 1 model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connected: %1 models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(%1 is not among them.)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Gui::TurnModel</name>
    <message>
        <source>Prompt: %1 tokens
Completion: %2 tokens
Total: %3 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request %1 (turn %2 of its run), sent %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 + %2 = %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Prompt + completion = total tokens, when the provider reports usage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Finish</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>Message %1 is not a JSON object.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing tool results for ids: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>duplicate tool results for ids: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tool results without a matching tool call for ids: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>duplicate tool call ids in one assistant message: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every tool call must be answered by exactly one tool message before the next request; nothing was sent.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Message</name>
    <message>
        <source>Malformed message: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a tool call has no id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tool call %1 has no function name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tool call %1 has arguments that are neither text nor an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;content&quot; must be text or null</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>a tool message has no tool_call_id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown role &quot;%1&quot;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RetryPolicy</name>
    <message>
        <source>Retrying in %1 s (attempt %2 of %3).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use the offline &amp;demo (no key, no network)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use the offline demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A built-in scripted model shows how the agent works: it asks to run a harmless command, waits for your approval and answers with the output. Untick it to use a real provider.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Provider</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Base URL:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The address of an OpenAI-compatible API, usually ending in /v1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_API_KEY</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the API key</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Store the key in the settings file in &amp;plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Store the key in the settings file in plain text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>OPENAI_MODEL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asks the provider for its list of models with the values entered above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Testing the connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection test result</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Agent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Workspace folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The folder commands run in</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse for the workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max t&amp;urns:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many requests the agent may send the model for one prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Max turns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request time&amp;out:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How long the provider may stay silent before a request is given up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Request timeout in seconds</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SseParser</name>
    <message>
        <source>The provider sent a server-sent event longer than %1 bytes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is probably not streaming Chat Completions events; try again with streaming turned off.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StreamAssembler</name>
    <message>
        <source>The provider reported an error in the stream: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The request reached the provider but it could not answer it; read its message above.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an object</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider sent a stream event that is not JSON (%1): %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is probably not an OpenAI-compatible Chat Completions API, or it does not support streaming: try again with streaming turned off.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The stream ended before the model finished.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The connection was cut while the model was answering; try again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The provider&apos;s stream has no choices.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The endpoint is probably not fully compatible with Chat Completions: try another provider or model, or turn streaming off.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Transcript</name>
    <message>
        <source>Cannot write the transcript %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a file in a folder you can write to.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
