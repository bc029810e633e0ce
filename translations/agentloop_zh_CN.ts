<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AgentLoop::AgentController</name>
    <message>
        <source>Agent exceeded maxTurns=%1</source>
        <translation>智能体超出轮次上限 maxTurns=%1</translation>
    </message>
    <message>
        <source>The model kept calling tools without reaching an answer. Give a more specific prompt, or check the setup with a simple command first.</source>
        <translation>模型反复调用工具，却始终没有得出答案。请换一个更明确的提示词，或先用一条简单的命令确认配置可用。</translation>
    </message>
    <message>
        <source>Model output reached the token limit</source>
        <translation>模型输出达到 token 上限</translation>
    </message>
    <message>
        <source>The provider&apos;s content filter stopped the answer (finish_reason=content_filter)</source>
        <translation>供应商的内容过滤器中止了回答（finish_reason=content_filter）</translation>
    </message>
    <message>
        <source>Rephrase the task; the provider will not produce this output.</source>
        <translation>请换个说法描述任务；供应商不会生成这样的输出。</translation>
    </message>
    <message>
        <source>Unsupported finish_reason: %1</source>
        <translation>不支持的 finish_reason：%1</translation>
    </message>
    <message>
        <source>The endpoint is not fully compatible with Chat Completions. Try another provider or model.</source>
        <translation>该端点未完全兼容 Chat Completions。请换用其他供应商或模型。</translation>
    </message>
    <message>
        <source>The model returned neither text nor a tool call</source>
        <translation>模型既没有返回文本，也没有返回工具调用</translation>
    </message>
    <message>
        <source>An empty answer is never treated as success. Try again, or try another model.</source>
        <translation>空回答绝不会被当作成功。请重试，或换用其他模型。</translation>
    </message>
    <message>
        <source>Stopped by the user.</source>
        <translation>已被用户停止。</translation>
    </message>
    <message>
        <source>The provider reported an error in the middle of its answer (finish_reason=%1); the partial answer was not kept.</source>
        <translation>供应商在回答中途报告了错误（finish_reason=%1）；不完整的回答没有保留。</translation>
    </message>
    <message>
        <source>Try again; if it keeps happening, try another model or provider.</source>
        <translation>请重试；如果一直这样，请换一个模型或供应商。</translation>
    </message>
    <message>
        <source>The request is still too long for the model&apos;s context window after a compaction (%1 → %2 tokens) and one retry: %3</source>
        <translation>压缩（%1 → %2 个 token）并重试一次之后，请求对模型的上下文窗口来说仍然太长：%3</translation>
    </message>
    <message>
        <source>Set a smaller context window for this model in the settings, or start a new conversation.</source>
        <translation>请在设置中为此模型设置更小的上下文窗口，或开始新的对话。</translation>
    </message>
    <message>
        <source>The request is too long for the model&apos;s context window, and nothing is left to compact: %1</source>
        <translation>请求对模型的上下文窗口来说太长，而且已没有可压缩的内容：%1</translation>
    </message>
    <message>
        <source>The latest tool output or message alone is too long. Start a new conversation, or use a model with a larger window.</source>
        <translation>仅最新的工具输出或消息就已太长。请开始新的对话，或换用上下文窗口更大的模型。</translation>
    </message>
    <message>
        <source>The provider refused the request as too long for the model&apos;s context window; the conversation is compacted and the request sent again.</source>
        <translation>供应商以超出模型上下文窗口为由拒绝了请求；对话已压缩，请求已重新发送。</translation>
    </message>
    <message>
        <source>The model answered the summary request without a summary</source>
        <translation>模型对摘要请求的回答中没有摘要</translation>
    </message>
    <message>
        <source>Try again, or try another model.</source>
        <translation>请重试，或换用其他模型。</translation>
    </message>
    <message>
        <source>The compaction&apos;s summary request failed: %1</source>
        <translation>压缩的摘要请求失败：%1</translation>
    </message>
    <message>
        <source>The answer reached the output token limit; the model is asked to continue where it stopped (part %1 of at most %2).</source>
        <translation>回答达到了输出 token 上限；已请模型从中断处继续（第 %1 部分，最多 %2 部分）。</translation>
    </message>
    <message numerus="yes">
        <source>The answer reached the output token limit in the middle of %n tool call(s); nothing was run, and the model is asked to repeat them with less output per call.</source>
        <translation>
            <numerusform>回答在 %n 个工具调用中途达到了输出 token 上限；没有运行任何调用，已请模型以每次更少的输出重新发出这些调用。</numerusform>
        </translation>
    </message>
    <message>
        <source>The answer was cut off (finish_reason=length). Ask for a shorter output, or raise the max tokens setting.</source>
        <translation>回答被截断（finish_reason=length）。请要求更短的输出，或提高最大 token 数设置。</translation>
    </message>
    <message numerus="yes">
        <source>Model output reached the token limit, even after %n continuation(s)</source>
        <translation>
            <numerusform>即使继续了 %n 次，模型输出仍达到 token 上限</numerusform>
        </translation>
    </message>
    <message>
        <source>The answer was cut off (finish_reason=length) every time. Ask for a shorter output, raise the max tokens setting, or allow more continuations.</source>
        <translation>回答每次都被截断（finish_reason=length）。请要求更短的输出、提高最大 token 数设置，或允许更多次继续。</translation>
    </message>
    <message>
        <source>The request goes to the fallback model %1.</source>
        <translation>请求改发给后备模型 %1。</translation>
    </message>
    <message>
        <source>%1 (models tried: %2)</source>
        <translation>%1（已尝试的模型：%2）</translation>
    </message>
    <message>
        <source>Every fallback model failed too. %1</source>
        <translation>所有后备模型也都失败了。%1</translation>
    </message>
    <message>
        <source>The model sent several tool calls with the same id %1, so none of its calls was run.</source>
        <translation>模型发送了多个 id 同为 %1 的工具调用，因此其中的调用一个都没有运行。</translation>
    </message>
    <message>
        <source>This is a provider bug. Try again, or try another model.</source>
        <translation>这是供应商的缺陷。请重试，或换用其他模型。</translation>
    </message>
    <message>
        <source>The compaction could not save a tool output to %1: %2</source>
        <translation>压缩时无法把工具输出保存到 %1：%2</translation>
    </message>
    <message>
        <source>Check the free disk space and the outputs folder&apos;s permissions.</source>
        <translation>请检查磁盘剩余空间以及输出文件夹的权限。</translation>
    </message>
    <message>
        <source>The provider does not know the model %1 (HTTP %2).</source>
        <translation>供应商不认识模型 %1（HTTP %2）。</translation>
    </message>
    <message>
        <source>The model %1 is still rate-limited after the retries (HTTP %2).</source>
        <translation>重试之后，模型 %1 仍然受到速率限制（HTTP %2）。</translation>
    </message>
    <message>
        <source>The model %1 still fails after the retries (HTTP %2).</source>
        <translation>重试之后，模型 %1 仍然失败（HTTP %2）。</translation>
    </message>
    <message>
        <source>%1 (profile %2)</source>
        <translation>%1（配置 %2）</translation>
    </message>
    <message>
        <source>The run was stopped before this call finished; the app answered it so that every call keeps its result.</source>
        <translation>运行在这个调用完成之前被停止；应用替它作了回答，使每个调用都有结果。</translation>
    </message>
</context>
<context>
    <name>AgentLoop::AgentSession</name>
    <message>
        <source>A conversation cannot be opened while a run goes on.</source>
        <translation>运行进行中时无法打开对话。</translation>
    </message>
    <message>
        <source>The app stopped before this call finished; it was answered as interrupted when the conversation was reopened.</source>
        <translation>应用在这个调用完成之前停止了；重新打开对话时，它被回答为已中断。</translation>
    </message>
</context>
<context>
    <name>AgentLoop::CapabilityCheck</name>
    <message>
        <source>Listing models…</source>
        <translation>正在列出模型…</translation>
    </message>
    <message>
        <source>Reachable: yes</source>
        <translation>可连接：是</translation>
    </message>
    <message>
        <source>Key accepted: yes</source>
        <translation>密钥被接受：是</translation>
    </message>
    <message>
        <source>Model exists: yes</source>
        <translation>模型存在：是</translation>
    </message>
    <message>
        <source>Model exists: no — the provider lists no models</source>
        <translation>模型存在：否 — 供应商没有列出任何模型</translation>
    </message>
    <message>
        <source>Model exists: no — %1 is not the one model listed</source>
        <translation>模型存在：否 — %1 不是列出的那一个模型</translation>
    </message>
    <message>
        <source>Model exists: no — %1 is not among the %2 models listed</source>
        <translation>模型存在：否 — %1 不在列出的 %2 个模型中</translation>
    </message>
    <message>
        <source>Listed: %1</source>
        <translation>已列出：%1</translation>
    </message>
    <message>
        <source>Reachable: no</source>
        <translation>可连接：否</translation>
    </message>
    <message>
        <source>Key accepted: no (HTTP %1)</source>
        <translation>密钥被接受：否（HTTP %1）</translation>
    </message>
    <message>
        <source>Model exists: unknown — the provider has no model list</source>
        <translation>模型存在：未知 — 供应商没有模型列表</translation>
    </message>
    <message>
        <source>Model exists: unknown — the model list could not be read</source>
        <translation>模型存在：未知 — 无法读取模型列表</translation>
    </message>
    <message>
        <source>Sending a test request with one tool…</source>
        <translation>正在发送带一个工具的测试请求…</translation>
    </message>
    <message>
        <source>Trying again without streaming…</source>
        <translation>正在以非流式方式重试…</translation>
    </message>
    <message>
        <source>Streaming: no — the provider cannot stream with tools</source>
        <translation>流式输出：否 — 供应商无法在使用工具时流式输出</translation>
    </message>
    <message>
        <source>Streaming: no — the streamed request failed, the same request without streaming worked</source>
        <translation>流式输出：否 — 流式请求失败，同样的请求不用流式则成功</translation>
    </message>
    <message>
        <source>Streaming: not tried — the profile asks for whole answers</source>
        <translation>流式输出：未尝试 — 此配置要求完整回答</translation>
    </message>
    <message>
        <source>Streaming: yes</source>
        <translation>流式输出：是</translation>
    </message>
    <message>
        <source>Streaming: no — the provider sent one whole answer instead</source>
        <translation>流式输出：否 — 供应商改为发送了一个完整回答</translation>
    </message>
    <message>
        <source>Tool calling: yes</source>
        <translation>工具调用：是</translation>
    </message>
    <message>
        <source>Tool calling: no — the model called %1 instead of the test tool</source>
        <translation>工具调用：否 — 模型调用了 %1，而不是测试工具</translation>
    </message>
    <message>
        <source>Tool calling: no — the model answered in text instead</source>
        <translation>工具调用：否 — 模型改用文字回答</translation>
    </message>
    <message>
        <source>Usage reporting: yes</source>
        <translation>用量报告：是</translation>
    </message>
    <message>
        <source>%1 prompt tokens, %2 completion tokens</source>
        <translation>提示 %1 个 token，生成 %2 个 token</translation>
    </message>
    <message>
        <source>Usage reporting: no — not asked for, since the provider refuses stream_options</source>
        <translation>用量报告：否 — 未请求，因为供应商拒绝 stream_options</translation>
    </message>
    <message>
        <source>Usage reporting: no</source>
        <translation>用量报告：否</translation>
    </message>
    <message>
        <source>Reasoning field: none</source>
        <translation>推理字段：无</translation>
    </message>
    <message>
        <source>Reasoning field: %1</source>
        <translation>推理字段：%1</translation>
    </message>
    <message>
        <source>Without streaming: %1</source>
        <translation>不用流式：%1</translation>
    </message>
    <message>
        <source>Tool calling: no — the provider refused the request with a tool (HTTP %1)</source>
        <translation>工具调用：否 — 供应商拒绝了带工具的请求（HTTP %1）</translation>
    </message>
    <message>
        <source>Tool calling: no — the test request failed (HTTP %1)</source>
        <translation>工具调用：否 — 测试请求失败（HTTP %1）</translation>
    </message>
    <message>
        <source>Tool calling: unknown — the test request got no complete answer</source>
        <translation>工具调用：未知 — 测试请求没有得到完整回答</translation>
    </message>
    <message>
        <source>Tool calling: no — the answer to the test request could not be read</source>
        <translation>工具调用：否 — 无法读取测试请求的回答</translation>
    </message>
</context>
<context>
    <name>AgentLoop::KeyStore</name>
    <message>
        <source>This build of Agent Loop has no credential store support.</source>
        <translation>此版本的 Agent Loop 不支持系统凭据存储。</translation>
    </message>
    <message>
        <source>The credential store is turned off.</source>
        <translation>系统凭据存储已关闭。</translation>
    </message>
    <message>
        <source>The credential store did not answer within %1 s.</source>
        <translation>系统凭据存储在 %1 秒内没有响应。</translation>
    </message>
    <message>
        <source>Credential Manager error %1: %2</source>
        <translation>凭据管理器错误 %1:%2</translation>
    </message>
    <message>
        <source>The key is %1 bytes; %2 stores at most %3 bytes. It is kept for this session only.</source>
        <translation>密钥有 %1 字节；%2 最多只能保存 %3 字节。它只在本次会话中保留。</translation>
    </message>
    <message>
        <source>Windows Credential Manager</source>
        <translation>Windows 凭据管理器</translation>
    </message>
</context>
<context>
    <name>AgentLoop::McpClient</name>
    <message>
        <source>%1 got no answer within %2 ms</source>
        <translation>%1 在 %2 毫秒内没有得到回答</translation>
    </message>
    <message>
        <source>server/discover did not offer %1; trying initialize</source>
        <translation>server/discover 没有提供 %1；改用 initialize</translation>
    </message>
    <message>
        <source>the server speaks only protocol versions %1, which this client does not</source>
        <translation>服务器只支持协议版本 %1，本客户端都不支持</translation>
    </message>
    <message>
        <source>server/discover failed (%1); trying initialize</source>
        <translation>server/discover 失败（%1）；改用 initialize</translation>
    </message>
    <message>
        <source>no answer to server/discover within %1 ms; trying initialize</source>
        <translation>server/discover 在 %1 毫秒内没有回答；改用 initialize</translation>
    </message>
    <message>
        <source>initialize failed: %1</source>
        <translation>initialize 失败：%1</translation>
    </message>
    <message>
        <source>the server answered initialize with protocol version “%1”, which this client does not speak</source>
        <translation>服务器对 initialize 的回答是协议版本“%1”，本客户端不支持</translation>
    </message>
    <message>
        <source>tools/list failed: %1</source>
        <translation>tools/list 失败：%1</translation>
    </message>
    <message>
        <source>the server was stopped</source>
        <translation>服务器已停止</translation>
    </message>
    <message>
        <source>the server %1</source>
        <translation>服务器%1</translation>
    </message>
    <message>
        <source>not JSON-RPC on its output: %1</source>
        <translation>其输出不是 JSON-RPC：%1</translation>
    </message>
    <message>
        <source>the server is not ready</source>
        <translation>服务器尚未就绪</translation>
    </message>
    <message>
        <source>the server has no initialize; asking server/discover again</source>
        <translation>服务器不支持 initialize；再次发送 server/discover</translation>
    </message>
</context>
<context>
    <name>AgentLoop::McpHttpTransport</name>
    <message>
        <source>the event stream broke: %1</source>
        <translation>事件流中断：%1</translation>
    </message>
    <message>
        <source>the answer is larger than %1 MiB</source>
        <translation>回答超过 %1 MiB</translation>
    </message>
    <message>
        <source>the request failed: %1</source>
        <translation>请求失败：%1</translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <source>HTTP %1: %2</source>
        <translation>HTTP %1：%2</translation>
    </message>
    <message>
        <source>ended the session (HTTP 404)</source>
        <translation>结束了会话（HTTP 404）</translation>
    </message>
    <message>
        <source>the event stream ended without an answer</source>
        <translation>事件流结束时没有回答</translation>
    </message>
    <message>
        <source>HTTP %1 with an empty answer</source>
        <translation>HTTP %1，回答为空</translation>
    </message>
    <message>
        <source>the answer is not JSON-RPC (%1): %2</source>
        <translation>回答不是 JSON-RPC（%1）：%2</translation>
    </message>
    <message>
        <source>could not be started: “%1” is not an http or https address</source>
        <translation>无法启动：“%1”不是 http 或 https 地址</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>the event stream ended without an answer, and resuming it brought none (HTTP %1)</source>
        <translation>事件流结束时没有回答，续接后仍没有回答（HTTP %1）</translation>
    </message>
    <message>
        <source>the event stream ended without an answer, and resuming it failed: %1</source>
        <translation>事件流结束时没有回答，续接失败：%1</translation>
    </message>
    <message>
        <source>offers no stream of its own messages (HTTP %1)</source>
        <translation>不提供它自己消息的事件流（HTTP %1）</translation>
    </message>
    <message numerus="yes">
        <source>stopped listening for its own messages: its stream ended %n times in a row without a message</source>
        <translation>
            <numerusform>已停止接收它自己的消息：它的事件流连续 %n 次结束而没有任何消息</numerusform>
        </translation>
    </message>
    <message>
        <source>the server redirected the request to another address, %1; it was not followed, so that the server&apos;s headers go nowhere else</source>
        <translation>服务器把请求重定向到了另一个地址 %1；未跟随该重定向，以免服务器的请求头被发往别处</translation>
    </message>
</context>
<context>
    <name>AgentLoop::McpManager</name>
    <message>
        <source>Another server named “%1” (in %2) is left out: names must be unique.</source>
        <translation>另一个名为“%1”的服务器（在 %2 中）被略过：名称必须唯一。</translation>
    </message>
    <message>
        <source>The server offers %1 tools; only the first %2 are used.</source>
        <translation>该服务器提供 %1 个工具；只使用前 %2 个。</translation>
    </message>
    <message>
        <source>Another tool is already named %1: the tool “%2” is offered as %3.</source>
        <translation>已有另一个工具名为 %1：工具“%2”以 %3 提供。</translation>
    </message>
    <message>
        <source>The tool “%1” is offered as %2: a tool name may only have letters, digits, “_” and “-”, at most 64 of them.</source>
        <translation>工具“%1”以 %2 提供：工具名只能包含字母、数字、“_”和“-”，最多 64 个。</translation>
    </message>
    <message>
        <source>The input schema of “%1” uses %2, which Agent Loop cannot check: its arguments are not validated, and each approval says so.</source>
        <translation>“%1”的输入模式使用了 %2，Agent Loop 无法检查：其参数不会被校验，每次批准时都会注明。</translation>
    </message>
</context>
<context>
    <name>AgentLoop::McpServer</name>
    <message>
        <source>did not become ready within %1 s</source>
        <translation>在 %1 秒内未就绪</translation>
    </message>
    <message>
        <source>stopped after 3 crashes in a minute (the last: %1)</source>
        <translation>一分钟内崩溃 3 次后已停止（最后一次：%1）</translation>
    </message>
    <message>
        <source>%1; restarting in %2 s</source>
        <translation>%1；%2 秒后重新启动</translation>
    </message>
    <message>
        <source>disabled</source>
        <translation>已停用</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>restarting</source>
        <translation>正在重新启动</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Agent Loop declined the server&apos;s question for it: the answer held a provider&apos;s API key.</source>
        <translation>Agent Loop 已代为拒绝该服务器的询问：回答中含有提供商的 API 密钥。</translation>
    </message>
</context>
<context>
    <name>AgentLoop::McpStdioTransport</name>
    <message>
        <source>A line longer than %1 MiB on standard output was skipped.</source>
        <translation>标准输出上一行超过 %1 MiB，已跳过。</translation>
    </message>
    <message>
        <source>could not be started: %1</source>
        <translation>无法启动：%1</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>已崩溃</translation>
    </message>
    <message>
        <source>exited with code %1</source>
        <translation>以代码 %1 退出</translation>
    </message>
    <message>
        <source>could not be started: the working directory “%1” does not exist</source>
        <translation>无法启动：工作目录“%1”不存在</translation>
    </message>
    <message>
        <source>could not be started: the program “%1” was not found</source>
        <translation>无法启动：找不到程序“%1”</translation>
    </message>
    <message>
        <source>could not be started: an argument holds a line break, which cmd.exe cannot pass to “%1”</source>
        <translation>无法启动：某个参数含有换行，cmd.exe 无法把它传给“%1”</translation>
    </message>
</context>
<context>
    <name>AgentLoop::ToolProgress</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>AuditTrail</name>
    <message>
        <source>Could not write the audit trail %1: %2</source>
        <translation>无法写入审计记录 %1：%2</translation>
    </message>
    <message>
        <source>Check the free space and the permissions of the conversations folder.</source>
        <translation>请检查磁盘剩余空间以及对话文件夹的权限。</translation>
    </message>
</context>
<context>
    <name>BugBundle</name>
    <message numerus="yes">
        <source>(binary, %n byte(s))</source>
        <translation>
            <numerusform>（二进制，%n 字节）</numerusform>
        </translation>
    </message>
    <message>
        <source>The bug bundle was not saved: %1</source>
        <translation>错误报告包未保存：%1</translation>
    </message>
    <message>
        <source>the archive&apos;s headers</source>
        <translation>压缩包的文件头</translation>
    </message>
    <message>
        <source>The bug bundle was not saved: a key was still found in %1 after it had been removed.</source>
        <translation>错误报告包未保存：移除密钥后，仍在 %1 中发现了密钥。</translation>
    </message>
    <message>
        <source>Please report this: the bundle would have held your key.</source>
        <translation>请报告此问题：该报告包原本会包含你的密钥。</translation>
    </message>
    <message>
        <source>Cannot write the bug bundle %1: %2</source>
        <translation>无法写入错误报告包 %1：%2</translation>
    </message>
</context>
<context>
    <name>ChatClient</name>
    <message>
        <source>Network error: %1</source>
        <translation>网络错误：%1</translation>
    </message>
    <message>
        <source>Nothing is listening at %1. Check the base URL and that the server is running.</source>
        <translation>%1 上没有服务在监听。请检查基础 URL，并确认服务器正在运行。</translation>
    </message>
    <message>
        <source>The host name %1 could not be resolved. Check the base URL and your network connection.</source>
        <translation>无法解析主机名 %1。请检查基础 URL 和网络连接。</translation>
    </message>
    <message>
        <source>The TLS handshake failed. Check the base URL&apos;s scheme (http or https) and the server&apos;s certificate.</source>
        <translation>TLS 握手失败。请检查基础 URL 的协议（http 或 https）以及服务器的证书。</translation>
    </message>
    <message>
        <source>The provider closed the connection before answering. Try again; if it keeps happening, check proxies between you and the provider.</source>
        <translation>供应商在应答前关闭了连接。请重试；如果问题反复出现，请检查你与供应商之间的代理。</translation>
    </message>
    <message>
        <source>Check the base URL and your network connection.</source>
        <translation>请检查基础 URL 和网络连接。</translation>
    </message>
    <message>
        <source>The provider sent nothing for %1 s; the request was given up.</source>
        <translation>供应商 %1 秒内没有发送任何数据，已放弃该请求。</translation>
    </message>
    <message>
        <source>The model may be overloaded: try again, or raise the request timeout in the settings.</source>
        <translation>模型可能负载过高：请重试，或在设置中调大请求超时。</translation>
    </message>
    <message>
        <source>The model list is not the expected JSON ({&quot;data&quot;: [...]}).</source>
        <translation>模型列表不是预期的 JSON（{&quot;data&quot;: [...]}）。</translation>
    </message>
    <message>
        <source>Check that the base URL points at an OpenAI-compatible API (it usually ends in /v1).</source>
        <translation>请确认基础 URL 指向 OpenAI 兼容的 API（通常以 /v1 结尾）。</translation>
    </message>
    <message>
        <source>The answer stream broke off: %1</source>
        <translation>回答流中途中断：%1</translation>
    </message>
    <message>
        <source>The answer is incomplete and was not retried, so that nothing is shown twice. Send the prompt again.</source>
        <translation>回答不完整；为避免内容重复显示，没有自动重试。请重新发送提示词。</translation>
    </message>
    <message>
        <source>The provider redirected the request to another address, %1. The redirect was not followed, so that the API key is sent nowhere but to the base URL.</source>
        <translation>供应商把请求重定向到了另一个地址 %1。该重定向未被跟随，以确保 API 密钥只发送到基础 URL。</translation>
    </message>
    <message>
        <source>If %1 is where the provider answers now, set the base URL to %2.</source>
        <translation>如果供应商现在在 %1 应答，请把基础 URL 设为 %2。</translation>
    </message>
    <message>
        <source>The answer passed the %1 MB limit; it was given up.</source>
        <translation>回答超过了 %1 MB 的上限，已放弃。</translation>
    </message>
    <message>
        <source>Raise the maximum answer size in the settings (or with --max-response-mb) if answers this long are expected.</source>
        <translation>如果确实需要这么长的回答，请在设置中（或用 --max-response-mb）调大最大回答大小。</translation>
    </message>
    <message>
        <source>The answer was still arriving after %1 min; it was given up.</source>
        <translation>%1 分钟后回答仍未传完，已放弃。</translation>
    </message>
    <message>
        <source>The answer was still arriving after %1 s; it was given up.</source>
        <translation>%1 秒后回答仍未传完，已放弃。</translation>
    </message>
    <message>
        <source>Raise the maximum answer time in the settings (or with --max-answer-minutes), or ask for a shorter answer.</source>
        <translation>请在设置中（或用 --max-answer-minutes）调大最大回答时间，或要求更简短的回答。</translation>
    </message>
    <message>
        <source>The provider</source>
        <translation>供应商</translation>
    </message>
    <message>
        <source>This session leaves it out from now on.</source>
        <translation>本次会话今后不再发送它。</translation>
    </message>
    <message>
        <source>The profile %1 leaves it out from now on.</source>
        <translation>配置 %1 今后不再发送它。</translation>
    </message>
    <message>
        <source>%1 refused the stream_options field (HTTP %2); the request was sent again without it. %3</source>
        <translation>%1 拒绝了 stream_options 字段（HTTP %2）；已去掉它重新发送请求。%3</translation>
    </message>
    <message>
        <source>This session asks for whole answers from now on.</source>
        <translation>本次会话今后要求完整回答。</translation>
    </message>
    <message>
        <source>The profile %1 asks for whole answers from now on.</source>
        <translation>配置 %1 今后要求完整回答。</translation>
    </message>
    <message>
        <source>%1 cannot stream an answer that uses tools (HTTP %2); the request was sent again without streaming. %3</source>
        <translation>%1 无法在使用工具时流式输出回答（HTTP %2）；已改为非流式重新发送请求。%3</translation>
    </message>
</context>
<context>
    <name>Cli</name>
    <message>
        <source>Show this help.</source>
        <translation>显示此帮助。</translation>
    </message>
    <message>
        <source>Show the version.</source>
        <translation>显示版本信息。</translation>
    </message>
    <message>
        <source>The task for the agent.</source>
        <translation>交给智能体的任务。</translation>
    </message>
    <message>
        <source>text</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>文本</translation>
    </message>
    <message>
        <source>The folder commands run in (default: the current directory).</source>
        <translation>命令运行所在的文件夹（默认：当前目录）。</translation>
    </message>
    <message>
        <source>dir</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>目录</translation>
    </message>
    <message>
        <source>The most model requests for this task (default: 20).</source>
        <translation>此任务最多向模型发送的请求数（默认：20）。</translation>
    </message>
    <message>
        <source>n</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>n</translation>
    </message>
    <message>
        <source>Seconds the provider may stay silent before a request is given up (default: 120).</source>
        <translation>供应商无响应多少秒后放弃请求（默认：120）。</translation>
    </message>
    <message>
        <source>seconds</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>秒数</translation>
    </message>
    <message>
        <source>Write every request and response as JSON Lines to this file (the API key is redacted).</source>
        <translation>将每次请求和响应以 JSON Lines 格式写入此文件（API 密钥会被隐去）。</translation>
    </message>
    <message>
        <source>file</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>文件</translation>
    </message>
    <message>
        <source>Try --help for usage.</source>
        <translation>使用 --help 查看用法。</translation>
    </message>
    <message>
        <source>Unknown argument: %1</source>
        <translation>未知参数：%1</translation>
    </message>
    <message>
        <source>--prompt is required and must not be blank.</source>
        <translation>必须提供 --prompt，且不能为空。</translation>
    </message>
    <message>
        <source>--max-turns must be a whole number from 1 to 1000, not &quot;%1&quot;.</source>
        <translation>--max-turns 必须是 1 到 1000 之间的整数，而不是“%1”。</translation>
    </message>
    <message>
        <source>--request-timeout must be a whole number of seconds from 1 to 86400, not &quot;%1&quot;.</source>
        <translation>--request-timeout 必须是 1 到 86400 之间的整数秒数，而不是“%1”。</translation>
    </message>
    <message>
        <source>The workspace %1 is not a folder that exists.</source>
        <translation>工作区 %1 不是一个存在的文件夹。</translation>
    </message>
    <message>
        <source>Configuration error: %1</source>
        <translation>配置错误: %1</translation>
    </message>
    <message>
        <source>How to fix: %1</source>
        <translation>修复方法：%1</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>Ask for the whole answer at once instead of a stream (for providers that reject stream: true).</source>
        <translation>一次性请求完整回答，不使用流式传输（适用于拒绝 stream: true 的供应商）。</translation>
    </message>
    <message>
        <source>How often a rate-limited or failed request is sent again (default: 3).</source>
        <translation>被限流或失败的请求最多重发几次（默认：3）。</translation>
    </message>
    <message>
        <source>--max-retries must be a whole number from 0 to 10, not &quot;%1&quot;.</source>
        <translation>--max-retries 必须是 0 到 10 之间的整数，而不是“%1”。</translation>
    </message>
    <message>
        <source>Continue the conversation saved in this file, and append every new message to it as it happens.</source>
        <translation>继续此文件中保存的对话，并在每条新消息产生时将其追加到该文件。</translation>
    </message>
    <message>
        <source>The most megabytes one answer may bring before it is given up (default: 64).</source>
        <translation>一个回答最多可以有多少 MB，超过即放弃（默认：64）。</translation>
    </message>
    <message>
        <source>The most minutes one answer may take, however steadily it arrives, before it is given up (default: 10).</source>
        <translation>一个回答最多可以用多少分钟（无论数据是否持续到达），超过即放弃（默认：10）。</translation>
    </message>
    <message>
        <source>minutes</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>分钟数</translation>
    </message>
    <message>
        <source>--max-response-mb must be a whole number from 1 to 1024, not &quot;%1&quot;.</source>
        <translation>--max-response-mb 必须是 1 到 1024 之间的整数，而不是“%1”。</translation>
    </message>
    <message>
        <source>--max-answer-minutes must be a whole number of minutes from 1 to 1440, not &quot;%1&quot;.</source>
        <translation>--max-answer-minutes 必须是 1 到 1440 之间的整数分钟数，而不是“%1”。</translation>
    </message>
    <message>
        <source>Use this provider profile of the app (its name or id) instead of the OPENAI_* settings.</source>
        <translation>使用应用中的这个供应商配置（名称或 id），而不是 OPENAI_* 设置。</translation>
    </message>
    <message>
        <source>name</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <source>Instead of a task, check what the provider can do (model list, streaming, tool calling, usage, reasoning) with one tiny request.</source>
        <translation>不运行任务，而是用一个很小的请求检查供应商能做什么（模型列表、流式输出、工具调用、用量、推理）。</translation>
    </message>
    <message>
        <source>--check takes no --prompt: it sends a test request of its own.</source>
        <translation>--check 不接受 --prompt：它会发送自己的测试请求。</translation>
    </message>
    <message>
        <source>--profile needs the name of a profile.</source>
        <translation>--profile 需要一个配置名称。</translation>
    </message>
    <message>
        <source>Default</source>
        <extracomment>The name of the profile made of the original provider settings</extracomment>
        <translation>默认</translation>
    </message>
    <message>
        <source>There is no profile called &quot;%1&quot;.</source>
        <translation>没有名为“%1”的配置。</translation>
    </message>
    <message>
        <source>Profiles in %1: %2. Make profiles in the app&apos;s settings.</source>
        <translation>%1 中的配置：%2。请在应用的设置中创建配置。</translation>
    </message>
    <message>
        <source>The profile %1: %2</source>
        <translation>配置 %1：%2</translation>
    </message>
    <message>
        <source>The profile %1 names no model.</source>
        <translation>配置 %1 没有指定模型。</translation>
    </message>
    <message>
        <source>Choose a model for it in the app&apos;s settings.</source>
        <translation>请在应用的设置中为它选择一个模型。</translation>
    </message>
    <message>
        <source>No API key is stored for the profile %1.</source>
        <translation>配置 %1 没有保存 API 密钥。</translation>
    </message>
    <message>
        <source>Enter its key in the app&apos;s settings.</source>
        <translation>请在应用的设置中输入它的密钥。</translation>
    </message>
    <message>
        <source>Enter its key in the app&apos;s settings (the credential store said: %1).</source>
        <translation>请在应用的设置中输入它的密钥（凭据存储返回：%1）。</translation>
    </message>
    <message>
        <source>Warning: agentloop-cli is running as administrator: every command you approve runs with full rights over this computer.</source>
        <translation>警告：agentloop-cli 正以管理员身份运行：你批准的每条命令都将拥有这台计算机的全部权限。</translation>
    </message>
    <message>
        <source>Warning: agentloop-cli is running as root: every command you approve runs with full rights over this computer.</source>
        <translation>警告：agentloop-cli 正以 root 身份运行：你批准的每条命令都将拥有这台计算机的全部权限。</translation>
    </message>
    <message>
        <source>The permissions file %1 does not exist.</source>
        <translation>权限文件 %1 不存在。</translation>
    </message>
    <message>
        <source>--permissions: %1</source>
        <translation>--permissions：%1</translation>
    </message>
    <message>
        <source>Runs one task through the agent loop: the model may ask to run shell commands, each of which you approve at this terminal unless a rule (--allow, --deny, .agentloop/permissions.json) decides it.

Settings come from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL in the environment or in a .env file in the current directory, or, with --profile, from a provider profile made in the app.

Exit codes: 0 answered; 2 usage or configuration error (nothing sent); 3 agent failure; 4 provider or network error; 130 interrupted. With --permissions-check: 0 allow, 1 ask, 2 deny.</source>
        <translation>通过智能体循环运行一个任务：模型可能请求运行 shell 命令，除非有规则（--allow、--deny、.agentloop/permissions.json）作出决定，否则每条命令都需要你在此终端中批准。

设置来自环境变量或当前目录下 .env 文件中的 OPENAI_BASE_URL、OPENAI_API_KEY 和 OPENAI_MODEL；使用 --profile 时，则来自在应用中创建的供应商配置。

退出码：0 已回答；2 用法或配置错误（未发送任何内容）；3 智能体失败；4 供应商或网络错误；130 已中断。使用 --permissions-check 时：0 允许，1 询问，2 拒绝。</translation>
    </message>
    <message>
        <source>rule</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>规则</translation>
    </message>
    <message>
        <source>Allow the calls this rule matches without asking, e.g. &quot;shell(git status)&quot; or &quot;shell(npm run test:*)&quot; (repeatable).</source>
        <translation>不经询问即允许与此规则匹配的调用，例如 &quot;shell(git status)&quot; 或 &quot;shell(npm run test:*)&quot;（可重复使用）。</translation>
    </message>
    <message>
        <source>Ask before the calls this rule matches, even where another rule would allow them (repeatable).</source>
        <translation>在运行与此规则匹配的调用之前先询问，即使其他规则会允许它们（可重复使用）。</translation>
    </message>
    <message>
        <source>Deny the calls this rule matches; deny beats ask beats allow (repeatable).</source>
        <translation>拒绝与此规则匹配的调用；拒绝优先于询问，询问优先于允许（可重复使用）。</translation>
    </message>
    <message>
        <source>Add the rules of this file: {&quot;allow&quot;: [...], &quot;ask&quot;: [...], &quot;deny&quot;: [...]}, as in the workspace&apos;s .agentloop/permissions.json (which is always read too).</source>
        <translation>加入此文件中的规则：{&quot;allow&quot;: [...], &quot;ask&quot;: [...], &quot;deny&quot;: [...]}，格式与工作区的 .agentloop/permissions.json 相同（后者也总是会被读取）。</translation>
    </message>
    <message>
        <source>Allow the built-in read-only commands (git status, git diff, ls, pwd, ...) without asking, unless they redirect or substitute.</source>
        <translation>不经询问即允许内置的只读命令（git status、git diff、ls、pwd 等），除非它们使用了重定向或替换。</translation>
    </message>
    <message>
        <source>Instead of a task, print what the rules decide about this call, e.g. &quot;shell(git diff; rm -rf ~)&quot;, and the rule that decided it; exit 0 (allow), 1 (ask) or 2 (deny). Nothing is sent and no key is needed.</source>
        <translation>不运行任务，而是输出规则对此调用（例如 &quot;shell(git diff; rm -rf ~)&quot;）作出的决定以及作出决定的规则；退出码为 0（允许）、1（询问）或 2（拒绝）。不会发送任何内容，也不需要密钥。</translation>
    </message>
    <message>
        <source>call</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>调用</translation>
    </message>
    <message>
        <source>--permissions-check takes no --prompt and no --check: it only decides the call it is given.</source>
        <translation>--permissions-check 不接受 --prompt 和 --check：它只对给定的调用作出决定。</translation>
    </message>
    <message>
        <source>--permissions-check needs a call, e.g. &quot;shell(git status)&quot;.</source>
        <translation>--permissions-check 需要一个调用，例如 &quot;shell(git status)&quot;。</translation>
    </message>
    <message>
        <source>built-in read-only commands</source>
        <translation>内置只读命令</translation>
    </message>
    <message>
        <source>app rules</source>
        <translation>应用规则</translation>
    </message>
    <message>
        <source>workspace rules</source>
        <translation>工作区规则</translation>
    </message>
    <message>
        <source>command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <source>this conversation</source>
        <translation>本对话</translation>
    </message>
    <message>
        <source>Invalid rule %1 (%2), which denies the calls it was meant for: %3</source>
        <translation>无效规则 %1（%2），它会拒绝其本应针对的调用：%3</translation>
    </message>
    <message>
        <source>Decision: %1</source>
        <translation>决定：%1</translation>
    </message>
    <message>
        <source>Decided by: %1</source>
        <translation>决定方：%1</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Warning: allow rule %1 of %2 is not used: the file was changed outside Agent Loop.</source>
        <translation>警告：未使用 %2 中的允许规则 %1：该文件在 Agent Loop 之外被修改过。</translation>
    </message>
    <message>
        <source>--permissions-check: %1</source>
        <translation>--permissions-check：%1</translation>
    </message>
    <message>
        <source>The model&apos;s context window in tokens (default: what the provider&apos;s model list says, else the built-in table of common models, else 128000).</source>
        <translation>模型的上下文窗口（token 数）（默认：供应商模型列表给出的值，否则为内置常用模型表中的值，否则为 128000）。</translation>
    </message>
    <message>
        <source>tokens</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>token 数</translation>
    </message>
    <message>
        <source>After every answer of the model, print the context budget of the next request on stderr: tokens used of the window, estimated or as the provider counted them.</source>
        <translation>模型每次回答后，在标准错误输出上打印下一个请求的上下文预算：已用的窗口 token 数，估算值或供应商统计的值。</translation>
    </message>
    <message>
        <source>The most tokens the model may write in one answer (default: the provider&apos;s own limit). An answer cut off at the limit is continued up to 3 times.</source>
        <translation>模型一次回答最多可写的 token 数（默认：供应商自己的上限）。在上限处被截断的回答最多继续 3 次。</translation>
    </message>
    <message>
        <source>The request field --max-tokens goes under: max_tokens or max_completion_tokens (default: what the provider expects; OpenAI max_completion_tokens, everyone else max_tokens).</source>
        <translation>--max-tokens 所用的请求字段：max_tokens 或 max_completion_tokens（默认：供应商所要求的；OpenAI 为 max_completion_tokens，其他均为 max_tokens）。</translation>
    </message>
    <message>
        <source>field</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>字段</translation>
    </message>
    <message>
        <source>A model of the same provider to send the request to when the model is not found, or is still rate-limited or failing after the retries; the run stays with it (repeatable, tried in order).</source>
        <translation>同一供应商的另一个模型：当模型不存在，或重试后仍受速率限制或仍失败时，请求改发给它，本次运行随后一直使用它（可重复，按顺序尝试）。</translation>
    </message>
    <message>
        <source>model</source>
        <extracomment>The value an option takes, as shown in --help: --option &lt;value&gt;</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <source>--context-window must be a whole number of tokens from 1 to 100000000, not &quot;%1&quot;.</source>
        <translation>--context-window 必须是 1 到 100000000 之间的整数 token 数，而不是“%1”。</translation>
    </message>
    <message>
        <source>--max-tokens must be a whole number of tokens from 0 (the provider&apos;s limit) to 10000000, not &quot;%1&quot;.</source>
        <translation>--max-tokens 必须是 0（供应商的上限）到 10000000 之间的整数 token 数，而不是“%1”。</translation>
    </message>
    <message>
        <source>--max-tokens-field must be max_tokens or max_completion_tokens, not &quot;%1&quot;.</source>
        <translation>--max-tokens-field 必须是 max_tokens 或 max_completion_tokens，而不是“%1”。</translation>
    </message>
    <message>
        <source>--fallback-model needs the name of a model.</source>
        <translation>--fallback-model 需要一个模型名称。</translation>
    </message>
    <message>
        <source>The conversation %1 does not exist.</source>
        <translation>对话 %1 不存在。</translation>
    </message>
    <message>
        <source>Bug bundle not written: %1</source>
        <translation>未写入错误报告包：%1</translation>
    </message>
    <message numerus="yes">
        <source>Bug bundle (%n files, the API key removed):</source>
        <translation>
            <numerusform>错误报告包（%n 个文件，已移除 API 密钥）：</numerusform>
        </translation>
    </message>
    <message>
        <source>Written to %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Write a bug bundle to this zip file: the requests and responses of the run, its tool runs, audit lines, versions and settings, the API key removed. Without --prompt, of the --conversation alone, without contacting a model.</source>
        <translation>将错误报告包写入此 zip 文件：本次运行的请求和响应、工具运行记录、审计记录、版本和设置，并移除 API 密钥。不带 --prompt 时，只包含 --conversation 指定的对话，且不联系任何模型。</translation>
    </message>
    <message>
        <source>--bundle needs the name of a zip file.</source>
        <translation>--bundle 需要一个 zip 文件名。</translation>
    </message>
    <message>
        <source>--bundle does not go with --check or --permissions-check.</source>
        <translation>--bundle 不能与 --check 或 --permissions-check 一起使用。</translation>
    </message>
    <message>
        <source>--bundle needs --conversation, --prompt or both.</source>
        <translation>--bundle 需要 --conversation、--prompt 或两者同时使用。</translation>
    </message>
    <message>
        <source>The MCP configuration file %1 does not exist.</source>
        <translation>MCP 配置文件 %1 不存在。</translation>
    </message>
    <message>
        <source>--mcp-config: %1</source>
        <translation>--mcp-config：%1</translation>
    </message>
    <message>
        <source>Start the MCP servers of this file ({&quot;mcpServers&quot;: {...}}, as Claude Desktop and Cursor write it) and offer their tools to the model as mcp__&lt;server&gt;__&lt;tool&gt; (repeatable; the workspace&apos;s .agentloop/mcp.json only when named here).</source>
        <translation>启动此文件中的 MCP 服务器（{&quot;mcpServers&quot;: {...}}，与 Claude Desktop 和 Cursor 的写法相同），并以 mcp__&lt;服务器&gt;__&lt;工具&gt; 的名称把它们的工具提供给模型（可重复；工作区的 .agentloop/mcp.json 只有在这里指定时才使用）。</translation>
    </message>
    <message>
        <source>Instead of a task, start the servers of --mcp-config, print each one&apos;s state, protocol version and tools (read or execute, and whether a call asks), and exit. No model is contacted and no key is needed.</source>
        <translation>不执行任务，而是启动 --mcp-config 中的服务器，打印每个服务器的状态、协议版本和工具（读取或执行，以及调用时是否询问），然后退出。不联系模型，也不需要密钥。</translation>
    </message>
    <message>
        <source>--mcp-list takes no --prompt, --check, --permissions-check or --bundle: it only lists the MCP servers.</source>
        <translation>--mcp-list 不能与 --prompt、--check、--permissions-check 或 --bundle 同用：它只列出 MCP 服务器。</translation>
    </message>
    <message>
        <source>--mcp-list needs the servers: --mcp-config FILE.</source>
        <translation>--mcp-list 需要服务器：--mcp-config 文件。</translation>
    </message>
</context>
<context>
    <name>Cli::CliCheck</name>
    <message>
        <source>Suggested: turn streaming off (--no-stream, or the profile&apos;s streaming switch).</source>
        <translation>建议：关闭流式输出（--no-stream，或配置中的流式开关）。</translation>
    </message>
    <message>
        <source>Suggested: leave stream_options out (the profile&apos;s usage switch); the app does so by itself after the first refusal.</source>
        <translation>建议：不发送 stream_options（配置中的用量开关）；应用在第一次被拒绝后会自动这样做。</translation>
    </message>
</context>
<context>
    <name>Cli::CliMcpList</name>
    <message>
        <source>modern</source>
        <translation>新版</translation>
    </message>
    <message>
        <source>legacy</source>
        <translation>旧版</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>MCP server “%1” did not start.</source>
        <translation>MCP 服务器“%1”未能启动。</translation>
    </message>
    <message>
        <source>MCP server “%1” did not start: %2</source>
        <translation>MCP 服务器“%1”未能启动：%2</translation>
    </message>
    <message>
        <source>MCP server “%1” is not ready yet; the run goes on without it.</source>
        <translation>MCP 服务器“%1”尚未就绪；运行将在没有它的情况下继续。</translation>
    </message>
    <message>
        <source>  stderr: %1</source>
        <translation>  标准错误：%1</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1: %2: %3</source>
        <translation>%1：%2：%3</translation>
    </message>
    <message>
        <source>  warning: %1</source>
        <translation>  警告：%1</translation>
    </message>
    <message>
        <source>%1: %2, protocol %3 (%4)</source>
        <translation>%1：%2，协议 %3（%4）</translation>
    </message>
    <message>
        <source>read</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>execute</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>%1, asks</source>
        <translation>%1，会询问</translation>
    </message>
    <message>
        <source>%1, denied</source>
        <translation>%1，已拒绝</translation>
    </message>
    <message>
        <source>  (no tools)</source>
        <translation>  （没有工具）</translation>
    </message>
</context>
<context>
    <name>Cli::CliRun</name>
    <message>
        <source>[turn %1/%2] asking %3…</source>
        <translation>[轮次 %1/%2] 正在询问 %3…</translation>
    </message>
    <message>
        <source>Running %1…</source>
        <translation>正在运行 %1…</translation>
    </message>
    <message>
        <source>%1 finished: %2</source>
        <translation>%1 已完成：%2</translation>
    </message>
    <message>
        <source>%1 did not succeed: %2</source>
        <translation>%1 未成功：%2</translation>
    </message>
    <message>
        <source>Interrupted.</source>
        <translation>已中断。</translation>
    </message>
    <message>
        <source>Configuration error: %1</source>
        <translation>配置错误: %1</translation>
    </message>
    <message>
        <source>Run failed: %1</source>
        <translation>运行失败: %1</translation>
    </message>
    <message>
        <source>How to fix: %1</source>
        <translation>修复方法：%1</translation>
    </message>
    <message>
        <source>Workspace: %1</source>
        <translation>工作区：%1</translation>
    </message>
    <message>
        <source>Conversation repaired: %1</source>
        <translation>对话已修复：%1</translation>
    </message>
    <message numerus="yes">
        <source>Continuing %1 (%n message(s)).</source>
        <translation>
            <numerusform>正在继续 %1（%n 条消息）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
    <message>
        <source>The full output could not be saved: %1</source>
        <translation>无法保存完整输出：%1</translation>
    </message>
    <message>
        <source>Full output (%1): %2</source>
        <translation>完整输出（%1）：%2</translation>
    </message>
    <message>
        <source>Output file (incomplete, %1): %2 (%3)</source>
        <translation>输出文件（不完整，%1）：%2（%3）</translation>
    </message>
    <message>
        <source>%1 was denied by the rule %2; the model is told.</source>
        <translation>%1 已被规则 %2 拒绝；已告知模型。</translation>
    </message>
    <message>
        <source>%1 was allowed by the rule %2.</source>
        <translation>%1 已被规则 %2 允许。</translation>
    </message>
    <message>
        <source>context: %1 / %2 tokens (estimated)</source>
        <translation>上下文：%1 / %2 个 token（估算）</translation>
    </message>
    <message>
        <source>context: %1 / %2 tokens (as counted by the provider)</source>
        <translation>上下文：%1 / %2 个 token（供应商统计）</translation>
    </message>
    <message>
        <source>Context window: %1 tokens (--context-window).</source>
        <translation>上下文窗口：%1 个 token（--context-window）。</translation>
    </message>
    <message>
        <source>Context window: %1 tokens (the provider&apos;s model list).</source>
        <translation>上下文窗口：%1 个 token（供应商的模型列表）。</translation>
    </message>
    <message>
        <source>Context window: %1 tokens (the built-in table of common models).</source>
        <translation>上下文窗口：%1 个 token（内置常用模型表）。</translation>
    </message>
    <message>
        <source>Context window: %1 tokens (the model is not known; set it with --context-window).</source>
        <translation>上下文窗口：%1 个 token（模型未知；请用 --context-window 设置）。</translation>
    </message>
    <message>
        <source>request %1: HTTP %2, first byte %3 ms, %4 ms</source>
        <translation>请求 %1：HTTP %2，首字节 %3 毫秒，共 %4 毫秒</translation>
    </message>
    <message>
        <source>request %1: HTTP %2, no answer, %3 ms</source>
        <translation>请求 %1：HTTP %2，无应答，%3 毫秒</translation>
    </message>
    <message>
        <source>Bug bundle not written: %1</source>
        <translation>未写入错误报告包：%1</translation>
    </message>
    <message>
        <source>MCP: 1 tool offered.</source>
        <translation>MCP：提供了 1 个工具。</translation>
    </message>
    <message numerus="yes">
        <source>MCP: %n tools offered.</source>
        <translation>
            <numerusform>MCP：提供了 %n 个工具。</numerusform>
        </translation>
    </message>
    <message>
        <source>MCP server “%1” asks: %2 (declined: agentloop-cli cannot show forms)</source>
        <translation>MCP 服务器“%1”询问：%2（已拒绝：agentloop-cli 无法显示表单）</translation>
    </message>
    <message>
        <source>Starting 1 MCP server…</source>
        <translation>正在启动 1 个 MCP 服务器…</translation>
    </message>
    <message numerus="yes">
        <source>Starting %n MCP servers…</source>
        <translation>
            <numerusform>正在启动 %n 个 MCP 服务器…</numerusform>
        </translation>
    </message>
    <message>
        <source>MCP server “%1” stopped: %2</source>
        <translation>MCP 服务器“%1”已停止：%2</translation>
    </message>
    <message>
        <source>MCP server “%1” is restarting: %2</source>
        <translation>MCP 服务器“%1”正在重新启动：%2</translation>
    </message>
    <message>
        <source>MCP server “%1” is ready again.</source>
        <translation>MCP 服务器“%1”已重新就绪。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>Cli::TerminalApprover</name>
    <message>
        <source>Tool call needs approval: %1</source>
        <translation>工具调用需要批准: %1</translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation>原因: %1</translation>
    </message>
    <message>
        <source>No interactive input; the call is denied by default.</source>
        <translation>无交互输入,默认拒绝。</translation>
    </message>
    <message>
        <source>No answer; the call is denied.</source>
        <translation>未收到回答，已拒绝本次调用。</translation>
    </message>
    <message>
        <source>Denied.</source>
        <translation>已拒绝。</translation>
    </message>
    <message>
        <source>Command (%1, %2):</source>
        <translation>命令（%1，%2）：</translation>
    </message>
    <message>
        <source>1 line</source>
        <translation>1 行</translation>
    </message>
    <message numerus="yes">
        <source>%n lines</source>
        <translation>
            <numerusform>%n 行</numerusform>
        </translation>
    </message>
    <message>
        <source>1 character</source>
        <translation>1 个字符</translation>
    </message>
    <message numerus="yes">
        <source>%n characters</source>
        <translation>
            <numerusform>%n 个字符</numerusform>
        </translation>
    </message>
    <message>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <source>… 1 more character not shown</source>
        <translation>… 另有 1 个字符未显示</translation>
    </message>
    <message numerus="yes">
        <source>… %n more characters not shown</source>
        <translation>
            <numerusform>… 另有 %n 个字符未显示</numerusform>
        </translation>
    </message>
    <message>
        <source>Warning: this command contains 1 invisible or control character, shown as ⟨U+…⟩.</source>
        <translation>警告：此命令含有 1 个不可见字符或控制字符，显示为 ⟨U+…⟩。</translation>
    </message>
    <message>
        <source>Warning: these arguments contain 1 invisible or control character, shown as ⟨U+…⟩.</source>
        <translation>警告：这些参数含有 1 个不可见字符或控制字符，显示为 ⟨U+…⟩。</translation>
    </message>
    <message numerus="yes">
        <source>Warning: this command contains %n invisible or control characters, shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>警告：此命令含有 %n 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Warning: these arguments contain %n invisible or control characters, shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>警告：这些参数含有 %n 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message>
        <source>&apos;%1&apos; (%2) looks like &apos;%3&apos; at line %4, column %5</source>
        <translation>第 %4 行第 %5 列的“%1”（%2）看起来像“%3”</translation>
    </message>
    <message>
        <source>&apos;%1&apos; (%2) looks like &apos;%3&apos; at column %4</source>
        <translation>第 %4 列的“%1”（%2）看起来像“%3”</translation>
    </message>
    <message numerus="yes">
        <source>%1 and %n more</source>
        <translation>
            <numerusform>%1，另有 %n 处</numerusform>
        </translation>
    </message>
    <message>
        <source>Warning: letters from another script that look like Latin ones: %1.</source>
        <translation>警告：含有看起来像拉丁字母的其他文字字母：%1。</translation>
    </message>
    <message>
        <source>Commands are not confined to the workspace: a command can read and change anything your account can.</source>
        <translation>命令不受工作区限制：命令可以读取和更改你的账户能访问的任何内容。</translation>
    </message>
    <message>
        <source>Create %1</source>
        <translation>创建 %1</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <source>Create %1 (%2)</source>
        <translation>创建 %1（%2）</translation>
    </message>
    <message>
        <source>Edit %1 (%2)</source>
        <translation>编辑 %1（%2）</translation>
    </message>
    <message>
        <source>Changes: none</source>
        <translation>更改：无</translation>
    </message>
    <message>
        <source>Changes (+%1 −%2 lines):</source>
        <translation>更改（+%1 −%2 行）：</translation>
    </message>
    <message>
        <source>… the rest of the change is not shown</source>
        <translation>… 其余更改未显示</translation>
    </message>
    <message>
        <source>Warning: this change contains 1 invisible or control character, shown as ⟨U+…⟩.</source>
        <translation>警告：此更改包含 1 个不可见字符或控制字符，显示为 ⟨U+…⟩。</translation>
    </message>
    <message numerus="yes">
        <source>Warning: this change contains %n invisible or control characters, shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>警告：此更改包含 %n 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message>
        <source>Allow this call? [y/a/N] </source>
        <translation>允许此调用？[y/a/N] </translation>
    </message>
    <message>
        <source>Asked because:</source>
        <translation>询问原因：</translation>
    </message>
    <message>
        <source>Allowed for the rest of this conversation: this tool with these exact arguments.</source>
        <translation>在本对话的剩余部分中已允许：此工具搭配这些完全相同的参数。</translation>
    </message>
    <message>
        <source>Denied. The model is told: %1</source>
        <translation>已拒绝。已告知模型：%1</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>原因：</translation>
    </message>
    <message numerus="yes">
        <source>… %n more lines</source>
        <translation>
            <numerusform>… 另有 %n 行</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Compaction</name>
    <message>
        <source>A compaction record is malformed: %1</source>
        <translation>压缩记录格式错误：%1</translation>
    </message>
    <message>
        <source>it is not a compaction</source>
        <translation>它不是压缩记录</translation>
    </message>
    <message>
        <source>it has no id</source>
        <translation>它没有 id</translation>
    </message>
    <message>
        <source>its message counts are invalid</source>
        <translation>它的消息数无效</translation>
    </message>
    <message>
        <source>a stub is invalid</source>
        <translation>其中一个存根无效</translation>
    </message>
    <message>
        <source>The compaction %1 does not fit the conversation: %2</source>
        <translation>压缩 %1 与对话不符：%2</translation>
    </message>
    <message>
        <source>it covers messages the conversation does not have</source>
        <translation>它涵盖了对话中不存在的消息</translation>
    </message>
    <message>
        <source>its summary does not end between exchanges</source>
        <translation>它的摘要没有在两次交流之间结束</translation>
    </message>
    <message>
        <source>a stub replaces no tool result of its call</source>
        <translation>某个存根没有替换其调用的任何工具结果</translation>
    </message>
</context>
<context>
    <name>Completion</name>
    <message>
        <source>The provider answered with an HTML page instead of JSON.</source>
        <translation>供应商返回的是 HTML 页面，而不是 JSON。</translation>
    </message>
    <message>
        <source>A proxy, a login page or a wrong base URL answered. Check that the base URL points at the API (it usually ends in /v1).</source>
        <translation>应答的是代理、登录页面或错误的基础 URL。请确认基础 URL 指向 API（通常以 /v1 结尾）。</translation>
    </message>
    <message>
        <source>The provider&apos;s response is not JSON (%1): %2</source>
        <translation>供应商的响应不是 JSON（%1）：%2</translation>
    </message>
    <message>
        <source>The endpoint is probably not an OpenAI-compatible Chat Completions API. Check the base URL.</source>
        <translation>该端点可能不是 OpenAI 兼容的 Chat Completions API。请检查基础 URL。</translation>
    </message>
    <message>
        <source>The API key is invalid or has no access: check OPENAI_API_KEY and that this key can use OPENAI_MODEL.</source>
        <translation>API 密钥无效或没有访问权限：请检查 OPENAI_API_KEY，并确认该密钥可以使用 OPENAI_MODEL。</translation>
    </message>
    <message>
        <source>The base URL path is wrong: most often /v1 is missing (for example https://api.openai.com/v1). A model name this key cannot see also gives 404.</source>
        <translation>基础 URL 路径不对：多半是漏了 /v1（例如 https://api.openai.com/v1）。模型名称对该密钥不可见时也会返回 404。</translation>
    </message>
    <message>
        <source>The provider rejected the request: check the model name and that the model supports tool calling.</source>
        <translation>供应商拒绝了该请求：请检查模型名称，并确认该模型支持工具调用。</translation>
    </message>
    <message>
        <source>The provider took too long: try again, or raise the request timeout.</source>
        <translation>供应商响应超时：请重试，或调大请求超时。</translation>
    </message>
    <message>
        <source>Rate limit or quota reached: wait a moment and try again, or check the plan of this key.</source>
        <translation>已达到速率限制或配额上限：请稍后重试，或检查该密钥的套餐。</translation>
    </message>
    <message>
        <source>The provider had a problem of its own: try again in a moment.</source>
        <translation>供应商自身出现问题：请稍后重试。</translation>
    </message>
    <message>
        <source>an HTML page</source>
        <translation>HTML 页面</translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <source>HTTP %1: %2</source>
        <translation>HTTP %1：%2</translation>
    </message>
    <message>
        <source>not an object</source>
        <translation>不是对象</translation>
    </message>
    <message>
        <source>The provider reported an error: %1</source>
        <translation>供应商报告了错误：%1</translation>
    </message>
    <message>
        <source>The request reached the provider but it could not answer it; read its message above.</source>
        <translation>请求已到达供应商，但供应商无法处理；请阅读上方它给出的信息。</translation>
    </message>
    <message>
        <source>The provider&apos;s response has no choices: %1</source>
        <translation>供应商的响应中没有 choices：%1</translation>
    </message>
    <message>
        <source>The endpoint is probably not fully compatible with Chat Completions: try another provider or model.</source>
        <translation>该端点可能未完全兼容 Chat Completions：请换用其他供应商或模型。</translation>
    </message>
    <message>
        <source>The provider&apos;s first choice has no message: %1</source>
        <translation>供应商响应的第一个 choice 中没有 message：%1</translation>
    </message>
    <message>
        <source>The model asked for more than %1 tool calls in one message, so none of them was run.</source>
        <translation>模型在一条消息中请求了超过 %1 个工具调用，因此一个都没有运行。</translation>
    </message>
    <message>
        <source>Ask for the work in smaller steps, or try another model.</source>
        <translation>请把任务拆成更小的步骤，或换用其他模型。</translation>
    </message>
</context>
<context>
    <name>Config</name>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL must be an http:// or https:// URL, for example https://api.openai.com/v1 (got &quot;%1&quot;).</source>
        <translation>OPENAI_BASE_URL 必须是 http:// 或 https:// 开头的 URL，例如 https://api.openai.com/v1（当前为“%1”）。</translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL must not end with /chat/completions: the client appends /chat/completions itself, so the request would go to .../chat/completions/chat/completions. Use the part before it, for example https://api.openai.com/v1.</source>
        <translation>OPENAI_BASE_URL 不能以 /chat/completions 结尾：客户端会自行追加 /chat/completions，请求会因此发往 .../chat/completions/chat/completions。请只填写它前面的部分，例如 https://api.openai.com/v1。</translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL does not end with /v1; most providers expect it (for example https://api.openai.com/v1). A 404 from the provider usually means it is missing.</source>
        <translation>OPENAI_BASE_URL 不是以 /v1 结尾；大多数供应商都要求带上它（例如 https://api.openai.com/v1）。供应商返回 404 通常就是因为漏了它。</translation>
    </message>
    <message>
        <source>Missing required settings: %1</source>
        <translation>缺少必需的设置：%1</translation>
    </message>
    <message>
        <source>Set them in the environment or in a .env file in %1 (KEY=value, one per line; a value of only spaces counts as missing).</source>
        <translation>请在环境变量或 %1 中的 .env 文件里设置它们（KEY=value，每行一项；只有空格的值视为缺失）。</translation>
    </message>
</context>
<context>
    <name>ConversationFork</name>
    <message>
        <source>The request has no messages to fork.</source>
        <translation>此请求没有可分叉的消息。</translation>
    </message>
</context>
<context>
    <name>ConversationStore</name>
    <message>
        <source>Cannot read the conversation %1: %2</source>
        <translation>无法读取对话 %1：%2</translation>
    </message>
    <message>
        <source>Choose a conversation file saved by Agent Loop.</source>
        <translation>请选择由 Agent Loop 保存的对话文件。</translation>
    </message>
    <message>
        <source>the first line is not a conversation header</source>
        <translation>第一行不是对话头</translation>
    </message>
    <message>
        <source>Cannot read the conversation %1: format version %2 is not supported</source>
        <translation>无法读取对话 %1：不支持格式版本 %2</translation>
    </message>
    <message>
        <source>It was written by a newer Agent Loop; update the app.</source>
        <translation>该文件由更新版本的 Agent Loop 写入；请更新应用。</translation>
    </message>
    <message>
        <source>the file is empty</source>
        <translation>文件为空</translation>
    </message>
    <message>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <source>Line %1 could not be read and was skipped (%2).</source>
        <translation>第 %1 行无法读取，已跳过（%2）。</translation>
    </message>
    <message numerus="yes">
        <source>The app stopped while %n tool call(s) had no result; each was answered as interrupted.</source>
        <translation>
            <numerusform>应用停止时有 %n 个工具调用尚无结果；已将它们逐一标记为已中断。</numerusform>
        </translation>
    </message>
    <message>
        <source>The repair could not be saved: %1</source>
        <translation>无法保存修复结果：%1</translation>
    </message>
    <message>
        <source>Cannot delete the conversation %1: %2</source>
        <translation>无法删除对话 %1：%2</translation>
    </message>
    <message>
        <source>Cannot save the conversation in %1: %2</source>
        <translation>无法在 %1 中保存对话：%2</translation>
    </message>
    <message>
        <source>Check that the folder exists and can be written to.</source>
        <translation>请检查该文件夹是否存在且可写入。</translation>
    </message>
    <message>
        <source>cannot create the folder</source>
        <translation>无法创建该文件夹</translation>
    </message>
    <message>
        <source>Cannot write to the conversation %1: %2</source>
        <translation>无法写入对话 %1：%2</translation>
    </message>
    <message>
        <source>Check that the file exists and can be written to.</source>
        <translation>请检查该文件是否存在且可写入。</translation>
    </message>
    <message>
        <source>The conversation file is not open.</source>
        <translation>对话文件未打开。</translation>
    </message>
    <message>
        <source>Check the free disk space and the file&apos;s permissions.</source>
        <translation>请检查磁盘剩余空间和文件权限。</translation>
    </message>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>- Date: %1</source>
        <translation>- 日期：%1</translation>
    </message>
    <message>
        <source>- Model: %1</source>
        <translation>- 模型：%1</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Tool call `%1`</source>
        <translation>工具调用 `%1`</translation>
    </message>
    <message>
        <source>Tool result</source>
        <translation>工具结果</translation>
    </message>
    <message>
        <source>Cannot delete the command outputs of the conversation in %1.</source>
        <translation>无法删除该对话在 %1 中的命令输出。</translation>
    </message>
    <message>
        <source>Cannot delete the audit trail of the conversation %1: %2</source>
        <translation>无法删除对话 %1 的审计记录：%2</translation>
    </message>
    <message>
        <source>allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>allow for this conversation</source>
        <translation>在本对话中允许</translation>
    </message>
    <message>
        <source>deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>%1 (asked)</source>
        <translation>%1（经询问）</translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>Audit trail</source>
        <translation>审计记录</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Turn</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Call</source>
        <translation>调用 ID</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>决定方</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>Cannot save the conversation index %1: %2</source>
        <translation>无法保存对话索引 %1：%2</translation>
    </message>
</context>
<context>
    <name>DemoProvider</name>
    <message>
        <source>The offline demo has no %1</source>
        <translation>离线演示不提供 %1</translation>
    </message>
    <message>
        <source>Operation cancelled</source>
        <translation>操作已取消</translation>
    </message>
</context>
<context>
    <name>Experiment</name>
    <message>
        <source>1 · A turn limit of one</source>
        <translation>1 · 轮次上限为 1</translation>
    </message>
    <message>
        <source>Allow the command: it runs, but the loop has no second request left, so the run ends with “Agent exceeded maxTurns=1” instead of an answer.</source>
        <translation>允许这条命令：它会运行，但循环已没有第二次请求可用，所以运行以“智能体超出轮次上限 maxTurns=1”结束，而不是得到回答。</translation>
    </message>
    <message>
        <source>Run a harmless command and tell me what it printed.</source>
        <translation>运行一条无害的命令，并告诉我它输出了什么。</translation>
    </message>
    <message>
        <source>2 · A missing tool result</source>
        <translation>2 · 缺少一个工具结果</translation>
    </message>
    <message>
        <source>The history has two tool calls but one tool message, so the pairing check stops the run before anything is sent: the error names call_2 and the inspector&apos;s row says “not sent”. This conversation is not saved.</source>
        <translation>历史里有两个工具调用却只有一条 tool 消息，所以配对校验在发送任何内容之前就停止了运行：错误指出 call_2，检查器中的那一行显示“未发送”。这个对话不会被保存。</translation>
    </message>
    <message>
        <source>Go on.</source>
        <translation>继续。</translation>
    </message>
    <message>
        <source>Run two commands: echo one, echo two.</source>
        <translation>运行两条命令：echo one、echo two。</translation>
    </message>
    <message>
        <source>3 · A command that exits 1</source>
        <translation>3 · 退出码为 1 的命令</translation>
    </message>
    <message>
        <source>Allow the command: it exits with code 1, yet the loop goes on; the tool message in the history starts with shell_failed and the model answers after reading it.</source>
        <translation>允许这条命令：它以退出码 1 结束，但循环不会中断；历史中的 tool 消息以 shell_failed 开头，模型读到它之后再作答。</translation>
    </message>
    <message>
        <source>Run a command that fails, then tell me what happened.</source>
        <translation>运行一条会失败的命令，然后告诉我发生了什么。</translation>
    </message>
    <message>
        <source>Q1 · content “好的”, no tool calls</source>
        <translation>Q1 · content 为“好的”，没有工具调用</translation>
    </message>
    <message>
        <source>The model returns content: &quot;好的&quot; and tool_calls: []. Should the loop go on or end?</source>
        <translation>模型返回 content: &quot;好的&quot; 且 tool_calls: []，循环该继续还是结束？</translation>
    </message>
    <message>
        <source>It ends after one request with “好的” as the answer: the loop stops because the model called no tool, not because it said it was done.</source>
        <translation>一次请求后就以“好的”作为回答结束：循环停止是因为模型没有调用工具，而不是因为它说自己完成了。</translation>
    </message>
    <message>
        <source>Please get started.</source>
        <translation>请开始吧。</translation>
    </message>
    <message>
        <source>Q2 · content null, no tool calls</source>
        <translation>Q2 · content 为 null，没有工具调用</translation>
    </message>
    <message>
        <source>The model returns content: null and tool_calls: []. What should the code do, and why can it not simply return?</source>
        <translation>模型返回 content: null 且 tool_calls: []，代码该怎么做？为什么不能直接返回？</translation>
    </message>
    <message>
        <source>The run fails with “The model returned neither text nor a tool call”: an empty answer is never taken for success, and the inspector shows the response it came in.</source>
        <translation>运行以“模型既没有返回文本，也没有返回工具调用”失败：空回答绝不会被当作成功，检查器里可以看到它所在的响应。</translation>
    </message>
    <message>
        <source>Q3 · three calls, one fails</source>
        <translation>Q3 · 三个调用，其中一个失败</translation>
    </message>
    <message>
        <source>The model asks for three tools in one turn and one of them fails. How many tool messages go into the history?</source>
        <translation>模型一轮请求了 3 个工具，其中 1 个执行失败。要往历史里 push 几条 tool 消息？</translation>
    </message>
    <message>
        <source>Three: the next request in the inspector carries one tool message per call id, the failed read (file_not_found) included.</source>
        <translation>三条：检查器中的下一次请求为每个调用 id 带一条 tool 消息，失败的读取（file_not_found）也算在内。</translation>
    </message>
    <message>
        <source>Look around the workspace.</source>
        <translation>看看工作区里有什么。</translation>
    </message>
    <message>
        <source>Q4 · what the snapshot protects</source>
        <translation>Q4 · 快照防的是什么</translation>
    </message>
    <message>
        <source>What problem does snapshot() actually prevent?</source>
        <translation>snapshot() 到底防的是什么问题？</translation>
    </message>
    <message>
        <source>The model calls deploy, which the request&apos;s frozen tool list never offered: the call is looked up in that snapshot, answered unknown_tool and runs nothing, so a turn&apos;s calls are always judged against the tools the model was shown.</source>
        <translation>模型调用了 deploy，而这次请求冻结的工具列表从未提供它：调用在该快照中查找，被回答为 unknown_tool，什么都不运行——所以一轮中的调用总是按模型看到的那组工具来判断。</translation>
    </message>
    <message>
        <source>Deploy the project.</source>
        <translation>部署这个项目。</translation>
    </message>
    <message>
        <source>Q5 · what maxTurns counts</source>
        <translation>Q5 · maxTurns 数的是什么</translation>
    </message>
    <message>
        <source>Why does maxTurns=20 mean 20 model requests rather than 20 tool calls?</source>
        <translation>为什么 maxTurns=20 指的是 20 次模型请求，而不是 20 次工具调用？</translation>
    </message>
    <message>
        <source>With maxTurns = 2 the model makes three tool calls in its first request and still answers in its second: the inspector lists two requests, because a turn is one request, whatever number of calls it asks for.</source>
        <translation>在 maxTurns = 2 时，模型在第一次请求中发起三个工具调用，仍能在第二次请求中作答：检查器列出两次请求，因为一轮就是一次请求，不论它请求了多少个调用。</translation>
    </message>
</context>
<context>
    <name>FileTool</name>
    <message>
        <source>Changing a file requires explicit approval.</source>
        <translation>修改文件需要明确批准。</translation>
    </message>
</context>
<context>
    <name>Gui::AgentStatusBar</name>
    <message>
        <source>Demo mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <source>Agent status</source>
        <translation>智能体状态</translation>
    </message>
    <message>
        <source>Turn</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>供应商</translation>
    </message>
    <message>
        <source>Answers come from a built-in scripted model: nothing is sent over the network. Open File › Settings to connect a real provider.</source>
        <translation>回答来自内置的脚本化模型：不会通过网络发送任何内容。打开“文件 › 设置”即可连接真实的供应商。</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>%1 at %2</source>
        <extracomment>The status bar&apos;s provider: &quot;&lt;model&gt; at &lt;host:port&gt;&quot;</extracomment>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Retrying in %1 s (attempt %2 of %3)</source>
        <translation>%1 秒后重试（第 %2/%3 次尝试）</translation>
    </message>
    <message>
        <source>Waiting for the model… %1 s</source>
        <translation>正在等待模型… %1 秒</translation>
    </message>
    <message>
        <source>Awaiting your approval</source>
        <translation>等待你的批准</translation>
    </message>
    <message>
        <source>Running %1… %2 s</source>
        <translation>正在运行 %1… %2 秒</translation>
    </message>
    <message>
        <source>Turn %1 of %2</source>
        <translation>第 %1/%2 轮</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <extracomment>The status bar&apos;s provider with its profile: &quot;&lt;profile&gt; · &lt;model&gt; at &lt;host:port&gt;&quot;</extracomment>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Context budget</source>
        <translation>上下文预算</translation>
    </message>
    <message>
        <source>Compacting the conversation… %1 s</source>
        <translation>正在压缩对话… %1 秒</translation>
    </message>
    <message>
        <source>The next request sends %1 tokens of the model&apos;s context window of %2 (%3 %).</source>
        <extracomment>The status bar&apos;s context budget, in its tooltip: tokens of the next request, the model&apos;s window, the share of it</extracomment>
        <translation>下一个请求将发送 %1 个 token，模型的上下文窗口为 %2（%3 %）。</translation>
    </message>
    <message>
        <source>Estimated (≈): the provider has not counted all of it yet; once it reports usage, the estimate follows its count.</source>
        <translation>估算值（≈）：供应商尚未统计全部内容；一旦它报告用量，估算就以其统计为准。</translation>
    </message>
    <message>
        <source>As the provider counted it.</source>
        <translation>由供应商统计。</translation>
    </message>
    <message>
        <source>The window is your setting for this model (Settings › Context).</source>
        <translation>窗口是您为此模型设置的值（设置 › 上下文）。</translation>
    </message>
    <message>
        <source>The window is what the provider&apos;s model list says of this model.</source>
        <translation>窗口是供应商的模型列表为此模型给出的值。</translation>
    </message>
    <message>
        <source>The window comes from the built-in table of common models.</source>
        <translation>窗口来自内置的常用模型表。</translation>
    </message>
    <message>
        <source>The model&apos;s window is not known, so 128 000 tokens is assumed: set it in Settings › Context.</source>
        <translation>模型的窗口未知，因此假定为 128 000 个 token：请在“设置 › 上下文”中设置。</translation>
    </message>
    <message>
        <source>The request does not fit the window: the provider will likely refuse it unless the conversation is compacted.</source>
        <translation>请求超出了窗口：除非压缩对话，否则供应商很可能会拒绝它。</translation>
    </message>
    <message>
        <source>The request is close to the window&apos;s limit.</source>
        <translation>请求已接近窗口的上限。</translation>
    </message>
</context>
<context>
    <name>Gui::AppSettings</name>
    <message>
        <source>Set by %1 in %2</source>
        <extracomment>%1 is a variable name such as OPENAI_MODEL, %2 the path of the .env file</extracomment>
        <translation>由 %2 中的 %1 设置</translation>
    </message>
    <message>
        <source>Set by %1 in the environment</source>
        <translation>由环境变量 %1 设置</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
</context>
<context>
    <name>Gui::ApprovalPrompt</name>
    <message>
        <source>Approve tool call?</source>
        <translation>允许此工具调用？</translation>
    </message>
    <message>
        <source>Approve tool call</source>
        <translation>批准工具调用</translation>
    </message>
    <message>
        <source>&lt;p&gt;The model asks to run the tool &lt;b&gt;%1&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;%2&lt;/p&gt;</source>
        <translation>&lt;p&gt;模型请求运行工具 &lt;b&gt;%1&lt;/b&gt;。&lt;/p&gt;&lt;p&gt;%2&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The model asks to run the tool %1. %2</source>
        <translation>模型请求运行工具 %1。%2</translation>
    </message>
    <message>
        <source>Arguments of the tool call</source>
        <translation>工具调用的参数</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Command that will run</source>
        <translation>将要运行的命令</translation>
    </message>
    <message>
        <source>Show all</source>
        <translation>显示全部</translation>
    </message>
    <message>
        <source>Allow is available in a moment.</source>
        <translation>稍候即可选择“允许”。</translation>
    </message>
    <message numerus="yes">
        <source>%Ln line(s)</source>
        <translation>
            <numerusform>%Ln 行</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln character(s)</source>
        <translation>
            <numerusform>%Ln 个字符</numerusform>
        </translation>
    </message>
    <message>
        <source>Command (empty):</source>
        <translation>命令（空）：</translation>
    </message>
    <message>
        <source>Arguments (empty):</source>
        <translation>参数（空）：</translation>
    </message>
    <message>
        <source>Command (%1):</source>
        <translation>命令（%1）：</translation>
    </message>
    <message>
        <source>Arguments (%1):</source>
        <translation>参数（%1）：</translation>
    </message>
    <message>
        <source>Showing lines %1–%2 of %3 — scroll for the rest</source>
        <translation>正在显示第 %1–%2 行，共 %3 行——滚动查看其余部分</translation>
    </message>
    <message>
        <source>Showing lines %1–%2 of %3</source>
        <translation>正在显示第 %1–%2 行，共 %3 行</translation>
    </message>
    <message>
        <source>Showing the first %1 of %2.</source>
        <translation>正在显示前 %1（共 %2）。</translation>
    </message>
    <message>
        <source>Loading the whole text… %1%</source>
        <translation>正在载入全文… %1%</translation>
    </message>
    <message>
        <source>Showing all %1.</source>
        <translation>正在显示全部 %1。</translation>
    </message>
    <message>
        <source>Lines longer than %1 characters continue on the next line after ↩.</source>
        <translation>超过 %1 个字符的行在 ↩ 之后接续到下一行。</translation>
    </message>
    <message numerus="yes">
        <source>This command contains %Ln invisible or control character(s), shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>此命令包含 %Ln 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>These arguments contain %Ln invisible or control character(s), shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>这些参数包含 %Ln 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>This command contains %Ln letter(s) from another script that look like Latin ones (marked).</source>
        <translation>
            <numerusform>此命令包含 %Ln 个来自其他文字、外形类似拉丁字母的字母（已标出）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Commands are not confined to the workspace: a command can read and change anything your account can.</source>
        <translation>命令不受工作区限制：命令可以读取和更改你的账户能访问的任何内容。</translation>
    </message>
    <message>
        <source>Create %1</source>
        <translation>创建 %1</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <source>Create %1 (%2)</source>
        <translation>创建 %1（%2）</translation>
    </message>
    <message>
        <source>Edit %1 (%2)</source>
        <translation>编辑 %1（%2）</translation>
    </message>
    <message>
        <source>Show arguments</source>
        <translation>显示参数</translation>
    </message>
    <message>
        <source>Changes to the file</source>
        <translation>对文件的更改</translation>
    </message>
    <message>
        <source>Show changes</source>
        <translation>显示更改</translation>
    </message>
    <message>
        <source>Changes (none):</source>
        <translation>更改（无）：</translation>
    </message>
    <message>
        <source>Changes (+%1 −%2 lines):</source>
        <translation>更改（+%1 −%2 行）：</translation>
    </message>
    <message>
        <source>Only the beginning of the change is shown here; Show arguments has all of it.</source>
        <translation>此处只显示更改的开头；“显示参数”中有全部内容。</translation>
    </message>
    <message numerus="yes">
        <source>This change contains %Ln invisible or control character(s), shown as ⟨U+…⟩.</source>
        <translation>
            <numerusform>此更改包含 %Ln 个不可见字符或控制字符，显示为 ⟨U+…⟩。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>This change contains %Ln letter(s) from another script that look like Latin ones (marked).</source>
        <translation>
            <numerusform>此更改包含 %Ln 个看起来像拉丁字母的其他文字字母（已标记）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing runs unless you allow it. Deny, Esc or closing this box declines, and the model is told.</source>
        <translation>未经你允许，什么都不会运行。点“拒绝”、按 Esc 或关闭此对话框都表示拒绝，并会告知模型。</translation>
    </message>
    <message>
        <source>&amp;Allow once</source>
        <translation>仅允许一次(&amp;A)</translation>
    </message>
    <message>
        <source>Allow for this &amp;conversation</source>
        <translation>在本对话中允许(&amp;C)</translation>
    </message>
    <message>
        <source>Al&amp;ways allow…</source>
        <translation>始终允许(&amp;W)…</translation>
    </message>
    <message>
        <source>Deny with a &amp;reason…</source>
        <translation>拒绝并说明原因(&amp;R)…</translation>
    </message>
    <message>
        <source>No rule can allow this call: it cannot be taken apart with certainty.</source>
        <translation>没有规则可以允许此调用：无法确切地拆分它。</translation>
    </message>
    <message>
        <source>No rule can allow this call. %1</source>
        <translation>没有规则可以允许此调用。%1</translation>
    </message>
    <message>
        <source>Add a rule that allows calls like this one.</source>
        <translation>添加一条允许类似调用的规则。</translation>
    </message>
    <message>
        <source>Deny with a reason</source>
        <translation>拒绝并说明原因</translation>
    </message>
    <message>
        <source>The model reads this with the denial (at most %1 characters):</source>
        <translation>模型会连同拒绝一起读到这段话（最多 %1 个字符）：</translation>
    </message>
    <message numerus="yes">
        <source>… and %Ln more</source>
        <translation>
            <numerusform>… 以及另外 %Ln 项</numerusform>
        </translation>
    </message>
    <message>
        <source>&lt;p&gt;The model asks to run the tool &lt;b&gt;%1&lt;/b&gt; of the MCP server &lt;b&gt;%2&lt;/b&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;模型请求运行 MCP 服务器 &lt;b&gt;%2&lt;/b&gt; 的工具 &lt;b&gt;%1&lt;/b&gt;。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Server:</source>
        <translation>服务器：</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>the server marks it destructive</source>
        <translation>服务器标记其为破坏性操作</translation>
    </message>
    <message>
        <source>the server marks it read-only</source>
        <translation>服务器标记其为只读</translation>
    </message>
    <message>
        <source>Tool:</source>
        <translation>工具：</translation>
    </message>
    <message>
        <source>Description of the tool</source>
        <translation>工具的说明</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Description:</source>
        <translation>说明：</translation>
    </message>
    <message>
        <source>The arguments were not checked against the tool&apos;s input schema: it uses %1, which Agent Loop cannot check. Read them below.</source>
        <translation>参数没有按工具的输入模式检查：它使用了 %1，Agent Loop 无法检查。请阅读下面的参数。</translation>
    </message>
</context>
<context>
    <name>Gui::Approvals</name>
    <message>
        <source>The session has ended.</source>
        <translation>会话已结束。</translation>
    </message>
</context>
<context>
    <name>Gui::AuditModel</name>
    <message>
        <source>exit %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Turn</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Call</source>
        <translation>调用 ID</translation>
    </message>
    <message>
        <source>What ran</source>
        <translation>运行内容</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>决定方</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Allow for this conversation</source>
        <translation>在本对话中允许</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Not decided</source>
        <translation>未决定</translation>
    </message>
    <message>
        <source>%1 (asked)</source>
        <extracomment>A decision the user was asked for: &quot;Allow (asked)&quot;</extracomment>
        <translation>%1（经询问）</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
</context>
<context>
    <name>Gui::AuditPage</name>
    <message>
        <source>&amp;Copy entry</source>
        <translation>复制条目(&amp;C)</translation>
    </message>
    <message>
        <source>Audit trail</source>
        <translation>审计记录</translation>
    </message>
    <message>
        <source>Audit entry</source>
        <translation>审计条目</translation>
    </message>
    <message>
        <source>Every call of this conversation is listed above once it has finished: select one to see its whole audit line.</source>
        <translation>本对话的每个调用完成后都会列在上方：选择其中一个即可查看它完整的审计记录行。</translation>
    </message>
    <message>
        <source>Copy the selected call&apos;s audit line as JSON</source>
        <translation>将所选调用的审计记录行复制为 JSON</translation>
    </message>
</context>
<context>
    <name>Gui::BugBundles</name>
    <message>
        <source>Save &amp;bug bundle…</source>
        <translation>保存错误报告包(&amp;B)…</translation>
    </message>
    <message>
        <source>Save the selected requests, the tool runs, the versions and the settings as one zip for a bug report, the API key removed</source>
        <translation>将所选请求、工具运行记录、版本和设置保存为一个用于错误报告的 zip 文件，并移除 API 密钥</translation>
    </message>
    <message>
        <source>Save Bug Bundle</source>
        <translation>保存错误报告包</translation>
    </message>
    <message numerus="yes">
        <source>The bug bundle will hold these %n files, %1 in all. The API key has been removed from every one of them (also URL-encoded, base64, UTF-16 and JSON-escaped), and the zip is checked for it again before it is kept.</source>
        <translation>
            <numerusform>错误报告包将包含以下 %n 个文件，共 %1。已从每个文件中移除 API 密钥（包括 URL 编码、base64、UTF-16 和 JSON 转义形式），保存前还会再次检查 zip 文件中是否含有密钥。</numerusform>
        </translation>
    </message>
    <message>
        <source>Requests: %1 of the %2 in the inspector, as selected there (none selected: all of them; Ctrl+click or Shift+click selects several).</source>
        <translation>请求：检查器中 %2 个请求里的 %1 个，按其中的选择而定（未选择时包含全部；按住 Ctrl 或 Shift 单击可选择多个）。</translation>
    </message>
    <message>
        <source>Files in the bug bundle</source>
        <translation>错误报告包中的文件</translation>
    </message>
    <message>
        <source>Every file the zip will hold, with its size</source>
        <translation>zip 文件将包含的每个文件及其大小</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>&amp;Save…</source>
        <translation>保存(&amp;S)…</translation>
    </message>
    <message>
        <source>Zip archives (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
</context>
<context>
    <name>Gui::ChatDelegate</name>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Assistant · answering…</source>
        <translation>助手 · 正在回答…</translation>
    </message>
    <message>
        <source>Assistant (incomplete)</source>
        <translation>助手（未完成）</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>推理过程</translation>
    </message>
    <message>
        <source>Tool call: %1</source>
        <translation>工具调用：%1</translation>
    </message>
    <message>
        <source>Denied: %1 did not run</source>
        <translation>已拒绝：%1 未运行</translation>
    </message>
    <message>
        <source>Result: %1</source>
        <translation>结果：%1</translation>
    </message>
    <message>
        <source>exit code %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message numerus="yes">
        <source>Show all (%n lines)</source>
        <translation>
            <numerusform>显示全部（%n 行）</numerusform>
        </translation>
    </message>
    <message>
        <source>Show less</source>
        <translation>收起</translation>
    </message>
    <message>
        <source>Full output: %1</source>
        <translation>完整输出：%1</translation>
    </message>
    <message>
        <source>Output file (incomplete): %1</source>
        <translation>输出文件（不完整）：%1</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Message text</source>
        <translation>消息文本</translation>
    </message>
    <message>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
</context>
<context>
    <name>Gui::ChatModel</name>
    <message>
        <source>[%1 more not shown here; the inspector has all of it]</source>
        <translation>[另有 %1 未在此显示；检查器中有完整内容]</translation>
    </message>
    <message>
        <source>[%1 more not shown]</source>
        <translation>[另有 %1 未显示]</translation>
    </message>
    <message>
        <source>Your prompt</source>
        <translation>你的提示词</translation>
    </message>
    <message>
        <source>Assistant, answering</source>
        <translation>助手，正在回答</translation>
    </message>
    <message>
        <source>Assistant, incomplete answer</source>
        <translation>助手，回答未完成</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>Tool call: %1</source>
        <translation>工具调用：%1</translation>
    </message>
    <message>
        <source>Result of %1, exit code %2</source>
        <translation>%1 的结果，退出码 %2</translation>
    </message>
    <message>
        <source>Result of %1</source>
        <translation>%1 的结果</translation>
    </message>
    <message>
        <source>Result of %1: %2</source>
        <translation>%1 的结果：%2</translation>
    </message>
    <message>
        <source>Denied: %1 did not run</source>
        <translation>已拒绝：%1 未运行</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Notice</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>[The rest of the diff is not shown]</source>
        <translation>[其余差异未显示]</translation>
    </message>
    <message>
        <source>%1, %2 added, %3 removed</source>
        <translation>%1，新增 %2 行，删除 %3 行</translation>
    </message>
    <message>
        <source>Created %1</source>
        <translation>已创建 %1</translation>
    </message>
    <message>
        <source>Edited %1</source>
        <translation>已编辑 %1</translation>
    </message>
    <message>
        <source>1 message compacted</source>
        <translation>已压缩 1 条消息</translation>
    </message>
    <message>
        <source>%1 messages compacted</source>
        <translation>已压缩 %1 条消息</translation>
    </message>
    <message>
        <source>%1, folded</source>
        <translation>%1，已折叠</translation>
    </message>
</context>
<context>
    <name>Gui::ChatView</name>
    <message>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>This is the offline demo: a built-in scripted model answers, nothing goes over the network. Ask it anything, for example “What files are in my workspace?”, and watch one trip around the agent loop.</source>
        <translation>这是离线演示：由内置的脚本化模型作答，不会通过网络发送任何内容。随便问它点什么，例如“我的工作区里有哪些文件？”，然后看智能体循环完整地走一圈。</translation>
    </message>
    <message>
        <source>Tell the agent what to do. It shows you every command before it runs and runs it only after you say yes.</source>
        <translation>告诉智能体要做什么。每条命令运行前都会先给你过目，只有你同意后才会运行。</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy &amp;message</source>
        <translation>复制消息(&amp;M)</translation>
    </message>
    <message>
        <source>Copy c&amp;ommand</source>
        <translation>复制命令(&amp;O)</translation>
    </message>
    <message>
        <source>Show a&amp;ll</source>
        <translation>显示全部(&amp;L)</translation>
    </message>
    <message>
        <source>Show &amp;less</source>
        <translation>收起(&amp;L)</translation>
    </message>
    <message>
        <source>Show &amp;reasoning</source>
        <translation>显示推理过程(&amp;R)</translation>
    </message>
    <message>
        <source>Hide &amp;reasoning</source>
        <translation>隐藏推理过程(&amp;R)</translation>
    </message>
    <message>
        <source>Select &amp;text…</source>
        <translation>选择文本(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Open full output</source>
        <translation>打开完整输出(&amp;O)</translation>
    </message>
    <message>
        <source>Show full output in &amp;folder</source>
        <translation>在文件夹中显示完整输出(&amp;F)</translation>
    </message>
    <message>
        <source>Show in &amp;inspector</source>
        <translation>在检查器中显示(&amp;I)</translation>
    </message>
    <message>
        <source>Select &amp;all</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <source>Open &amp;file</source>
        <translation>打开文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open fol&amp;der</source>
        <translation>打开文件夹(&amp;D)</translation>
    </message>
    <message>
        <source>Show the &amp;original messages</source>
        <translation>显示原始消息(&amp;O)</translation>
    </message>
    <message>
        <source>Hide the &amp;original messages</source>
        <translation>隐藏原始消息(&amp;O)</translation>
    </message>
    <message>
        <source>Show &amp;raw output…</source>
        <translation>显示原始输出(&amp;R)…</translation>
    </message>
</context>
<context>
    <name>Gui::CompactionPrompt</name>
    <message>
        <source>• 1 earlier message summarised by one extra request to the model</source>
        <translation>• 1 条较早的消息由一次额外的模型请求进行摘要</translation>
    </message>
    <message>
        <source>• %1 earlier messages summarised by one extra request to the model</source>
        <translation>• %1 条较早的消息由一次额外的模型请求进行摘要</translation>
    </message>
    <message>
        <source>• 1 long tool output replaced by a short stub (the whole output stays on disk)</source>
        <translation>• 1 个很长的工具输出被替换为简短的存根（完整输出保留在磁盘上）</translation>
    </message>
    <message>
        <source>• %1 long tool outputs replaced by short stubs (the whole outputs stay on disk)</source>
        <translation>• %1 个很长的工具输出被替换为简短的存根（完整输出保留在磁盘上）</translation>
    </message>
    <message>
        <source>• The request goes from about %1 to about %2 tokens</source>
        <translation>• 请求从约 %1 个 token 减少到约 %2 个 token</translation>
    </message>
    <message>
        <source>Compact the conversation?</source>
        <translation>压缩对话？</translation>
    </message>
    <message>
        <source>Compact the conversation</source>
        <translation>压缩对话</translation>
    </message>
    <message>
        <source>The next request would fill most of the model&apos;s context window. Before it is sent, the conversation can be compacted:</source>
        <translation>下一个请求将占满模型上下文窗口的大部分。发送之前，可以先压缩对话：</translation>
    </message>
    <message>
        <source>The conversation file keeps every message as it was, and Undo compaction sends them in full again. Send without compacting, Esc or closing this box sends the request as it is.</source>
        <translation>对话文件会原样保留每条消息，“撤销压缩”会再次完整发送它们。“不压缩直接发送”、Esc 或关闭此对话框都会按原样发送请求。</translation>
    </message>
    <message>
        <source>&amp;Compact</source>
        <translation>压缩(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Send without compacting</source>
        <translation>不压缩直接发送(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Don&apos;t ask again</source>
        <translation>不再询问(&amp;D)</translation>
    </message>
    <message>
        <source>Compact automatically from now on, without this question (Settings › Context turns it back on)</source>
        <translation>今后自动压缩，不再询问（可在“设置 › 上下文”中重新打开）</translation>
    </message>
</context>
<context>
    <name>Gui::Compactions</name>
    <message>
        <source>Co&amp;mpact now</source>
        <translation>立即压缩(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Undo compaction</source>
        <translation>撤销压缩(&amp;U)</translation>
    </message>
    <message>
        <source>Summarise older turns and replace long tool outputs by stubs in the requests from now on; the conversation keeps every message</source>
        <translation>从现在起在请求中摘要较早的轮次，并把很长的工具输出替换为存根；对话会保留每条消息</translation>
    </message>
    <message>
        <source>Send the messages of the latest compaction in full again</source>
        <translation>再次完整发送最近一次压缩所涵盖的消息</translation>
    </message>
    <message>
        <source>Compact the conversation now: about %1 → %2 tokens</source>
        <translation>立即压缩对话：约 %1 → %2 个 token</translation>
    </message>
    <message>
        <source>Nothing to compact yet: no older turns or long tool outputs</source>
        <translation>尚无可压缩的内容：没有较早的轮次或很长的工具输出</translation>
    </message>
    <message>
        <source>Not while the agent is working</source>
        <translation>代理工作时不可用</translation>
    </message>
    <message>
        <source>No compaction to undo</source>
        <translation>没有可撤销的压缩</translation>
    </message>
</context>
<context>
    <name>Gui::ContextPage</name>
    <message>
        <source>Automatic: %1 tokens, as the provider&apos;s model list says.</source>
        <translation>自动：%1 个 token，来自供应商的模型列表。</translation>
    </message>
    <message>
        <source>Automatic: %1 tokens, from the built-in table of common models.</source>
        <translation>自动：%1 个 token，来自内置的常用模型表。</translation>
    </message>
    <message>
        <source>Automatic: %1 tokens, the default (the model is not in the built-in table, and the provider does not say).</source>
        <translation>自动：%1 个 token，默认值（模型不在内置表中，供应商也未给出）。</translation>
    </message>
    <message>
        <source>Compact the conversation &amp;automatically</source>
        <translation>自动压缩对话(&amp;A)</translation>
    </message>
    <message>
        <source>As&amp;k before an automatic compaction (show what it will do)</source>
        <translation>自动压缩前询问（显示将要做什么）(&amp;K)</translation>
    </message>
    <message>
        <source>Add the workspace&apos;s &amp;AGENTS.md to the system prompt</source>
        <translation>把工作区的 AGENTS.md 加入系统提示(&amp;A)</translation>
    </message>
    <message>
        <source>Automatic</source>
        <extracomment>The context window field when it is 0: the provider&apos;s metadata or the built-in table</extracomment>
        <translation>自动</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source> characters</source>
        <translation> 个字符</translation>
    </message>
    <message>
        <source>Context window</source>
        <translation>上下文窗口</translation>
    </message>
    <message>
        <source>How many tokens the model reads in one request. The status bar shows how much of it the next request uses.</source>
        <translation>模型在一次请求中读取的 token 数。状态栏显示下一个请求用掉了其中多少。</translation>
    </message>
    <message>
        <source>Compaction</source>
        <translation>压缩</translation>
    </message>
    <message>
        <source>Compact &amp;when the next request would pass</source>
        <translation>当下一个请求将超过此比例时压缩(&amp;W)</translation>
    </message>
    <message>
        <source>Replace old tool outputs &amp;longer than</source>
        <translation>替换长度超过此值的旧工具输出(&amp;L)</translation>
    </message>
    <message>
        <source>Keep the last &amp;exchanges verbatim</source>
        <translation>原样保留最近的交流次数(&amp;E)</translation>
    </message>
    <message>
        <source>Old tool outputs are replaced in the request by their first and last lines and where the whole output is saved; if that is not enough, older turns are summarised by one extra request to the model. The conversation file keeps every original message.</source>
        <translation>旧的工具输出在请求中被替换为其首尾几行以及完整输出的保存位置；如果仍不够，较早的轮次会由一次额外的模型请求进行摘要。对话文件保留每条原始消息。</translation>
    </message>
    <message>
        <source>Instructions and cut-off answers</source>
        <translation>项目说明与被截断的回答</translation>
    </message>
    <message>
        <source>&amp;Continue a cut-off answer up to</source>
        <translation>被截断的回答最多继续(&amp;C)</translation>
    </message>
    <message>
        <source> times</source>
        <translation> 次</translation>
    </message>
    <message>
        <source>Fallback models</source>
        <translation>后备模型</translation>
    </message>
    <message>
        <source>Model id, e.g. gpt-4.1-mini</source>
        <translation>模型 id，例如 gpt-4.1-mini</translation>
    </message>
    <message>
        <source>Fallback model</source>
        <translation>后备模型</translation>
    </message>
    <message>
        <source>Profile of the fallback model</source>
        <translation>后备模型的配置</translation>
    </message>
    <message>
        <source>Profile in use</source>
        <extracomment>The fallback model is reached with the provider profile in use</extracomment>
        <translation>当前使用的配置</translation>
    </message>
    <message>
        <source>A&amp;dd</source>
        <translation>添加(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>移除(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Up</source>
        <translation>上移(&amp;U)</translation>
    </message>
    <message>
        <source>Do&amp;wn</source>
        <translation>下移(&amp;W)</translation>
    </message>
    <message>
        <source>When the model is not found, or is still rate-limited or failing after the retries, the request goes to the next model of this list, and the run stays with it. The next run starts with the profile&apos;s own model again.</source>
        <translation>当模型不存在，或重试后仍受速率限制或仍失败时，请求会改发给此列表中的下一个模型，本次运行随后一直使用它。下一次运行重新从配置自己的模型开始。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <extracomment>A fallback model in the list: %1 is the model id, %2 the profile&apos;s name</extracomment>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>&amp;Window</source>
        <extracomment>The context window field&apos;s label; %1 is the model id</extracomment>
        <translation>窗口(&amp;W)</translation>
    </message>
    <message>
        <source>&amp;Window for %1</source>
        <translation>%1 的窗口(&amp;W)</translation>
    </message>
    <message>
        <source>Your setting is used instead.</source>
        <translation>将改用您的设置。</translation>
    </message>
    <message>
        <source>None</source>
        <extracomment>A price field at 0: no cost is shown</extracomment>
        <translation>无</translation>
    </message>
    <message>
        <source>In </source>
        <extracomment>Prefix of the price per million prompt tokens</extracomment>
        <translation>输入 </translation>
    </message>
    <message>
        <source>Out </source>
        <extracomment>Prefix of the price per million completion tokens</extracomment>
        <translation>输出 </translation>
    </message>
    <message>
        <source>Price per million prompt tokens</source>
        <translation>每百万提示 token 的价格</translation>
    </message>
    <message>
        <source>What the provider charges per million prompt (input) tokens</source>
        <translation>提供方对每百万提示（输入）token 的收费</translation>
    </message>
    <message>
        <source>Price per million completion tokens</source>
        <translation>每百万补全 token 的价格</translation>
    </message>
    <message>
        <source>What the provider charges per million completion (output) tokens</source>
        <translation>提供方对每百万补全（输出）token 的收费</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>货币</translation>
    </message>
    <message>
        <source>Per million tokens, from your provider&apos;s price list: the inspector then shows what each request cost. None: no cost is shown.</source>
        <translation>按每百万 token 计，取自提供方的价目表：检查器随后会显示每个请求的费用。无：不显示费用。</translation>
    </message>
    <message>
        <source>&amp;Price</source>
        <extracomment>The price fields&apos; label; %1 is the model id</extracomment>
        <translation>价格(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Price of %1</source>
        <translation>%1 的价格(&amp;P)</translation>
    </message>
</context>
<context>
    <name>Gui::ConversationActions</name>
    <message>
        <source>Delete Conversation</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “%1”? This cannot be undone.</source>
        <translation>删除“%1”？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Export Messages as JSON</source>
        <translation>将消息导出为 JSON</translation>
    </message>
    <message>
        <source>Export Conversation as Markdown</source>
        <translation>将对话导出为 Markdown</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>Markdown files (*.md)</source>
        <translation>Markdown 文件 (*.md)</translation>
    </message>
    <message>
        <source>Cannot export the conversation to %1: %2</source>
        <translation>无法将对话导出到 %1：%2</translation>
    </message>
    <message>
        <source>Messages as &amp;JSON…</source>
        <translation>消息（JSON）(&amp;J)…</translation>
    </message>
    <message>
        <source>Save the conversation as the messages array of a request, ready to paste</source>
        <translation>将对话保存为请求中的 messages 数组，可直接粘贴使用</translation>
    </message>
    <message>
        <source>&amp;Markdown…</source>
        <translation>Markdown(&amp;M)…</translation>
    </message>
    <message>
        <source>Save the conversation, with its audit trail, as a readable Markdown file</source>
        <translation>将对话连同其审计记录保存为易读的 Markdown 文件</translation>
    </message>
    <message>
        <source>&amp;Audit trail as JSON Lines…</source>
        <translation>审计记录（JSON Lines）(&amp;A)…</translation>
    </message>
    <message>
        <source>Save every call&apos;s decision and outcome, one JSON object per line</source>
        <translation>保存每个调用的决定和结果，每行一个 JSON 对象</translation>
    </message>
    <message>
        <source>Export the Audit Trail as JSON Lines</source>
        <translation>将审计记录导出为 JSON Lines</translation>
    </message>
    <message>
        <source>JSON Lines files (*.jsonl)</source>
        <translation>JSON Lines 文件 (*.jsonl)</translation>
    </message>
</context>
<context>
    <name>Gui::ConversationListModel</name>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message numerus="yes">
        <source>%1
Started %2
%Ln message(s), %3</source>
        <translation>
            <numerusform>%1
开始于 %2
%Ln 条消息，%3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Gui::ConversationPanel</name>
    <message>
        <source>Search conversations</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Rename</source>
        <translation>重命名(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
</context>
<context>
    <name>Gui::ElevationBar</name>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Agent Loop is running as administrator: every command you approve runs with full rights over this computer. Close it and start it normally.</source>
        <translation>Agent Loop 正以管理员身份运行：你批准的每条命令都将拥有这台计算机的全部权限。请关闭它，再以普通方式启动。</translation>
    </message>
    <message>
        <source>Agent Loop is running as root: every command you approve runs with full rights over this computer. Close it and start it as your own user.</source>
        <translation>Agent Loop 正以 root 身份运行：你批准的每条命令都将拥有这台计算机的全部权限。请关闭它，再以你自己的用户身份启动。</translation>
    </message>
    <message>
        <source>Hide this warning until Agent Loop is started again</source>
        <translation>在 Agent Loop 下次启动前隐藏此警告</translation>
    </message>
</context>
<context>
    <name>Gui::Experiments</name>
    <message>
        <source>&amp;Experiments…</source>
        <translation>实验(&amp;E)…</translation>
    </message>
    <message>
        <source>Run the course&apos;s experiments and self-test cases on the built-in scripted model</source>
        <translation>用内置的脚本化模型运行课程中的实验和自测题</translation>
    </message>
    <message>
        <source>Experiment “%1”: %2</source>
        <translation>实验“%1”：%2</translation>
    </message>
</context>
<context>
    <name>Gui::ExperimentsDialog</name>
    <message>
        <source>Experiments</source>
        <translation>实验</translation>
    </message>
    <message>
        <source>Each runs in a fresh conversation on the built-in scripted model: nothing goes to your provider, and your settings stay as they are. Watch the chat and the inspector.</source>
        <translation>每个实验都在一个新对话中、用内置的脚本化模型运行：不会向你的供应商发送任何内容，你的设置也保持不变。请留意对话和检查器。</translation>
    </message>
    <message>
        <source>Experiments from the course</source>
        <translation>课程中的实验</translation>
    </message>
    <message>
        <source>Self-test questions</source>
        <translation>自测题</translation>
    </message>
    <message>
        <source>What to look at: %1</source>
        <translation>看什么：%1</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Start “%1” in a fresh conversation</source>
        <translation>在新对话中开始“%1”</translation>
    </message>
</context>
<context>
    <name>Gui::HexDumpModel</name>
    <message>
        <source>Offset</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>Bytes (hex)</source>
        <translation>字节（十六进制）</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
</context>
<context>
    <name>Gui::Inspector</name>
    <message>
        <source>Copy &amp;request</source>
        <translation>复制请求(&amp;R)</translation>
    </message>
    <message>
        <source>Copy re&amp;sponse</source>
        <translation>复制响应(&amp;S)</translation>
    </message>
    <message>
        <source>Copy as c&amp;url</source>
        <translation>复制为 curl 命令(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Wrap lines</source>
        <translation>自动换行(&amp;W)</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Request body</source>
        <translation>请求正文</translation>
    </message>
    <message>
        <source>Response body</source>
        <translation>响应正文</translation>
    </message>
    <message>
        <source>Assembled message</source>
        <translation>拼合后的消息</translation>
    </message>
    <message>
        <source>Request and response headers</source>
        <translation>请求头和响应头</translation>
    </message>
    <message>
        <source>Select a request above to see the exact JSON that was sent.</source>
        <translation>在上方选择一个请求，即可查看实际发送的 JSON。</translation>
    </message>
    <message>
        <source>Select a request above to see the exact JSON that came back.</source>
        <translation>在上方选择一个请求，即可查看实际返回的 JSON。</translation>
    </message>
    <message>
        <source>Select a request above to see its HTTP headers.</source>
        <translation>在上方选择一个请求，即可查看它的 HTTP 标头。</translation>
    </message>
    <message>
        <source>The stream ended before a complete message could be assembled.</source>
        <translation>流在拼合出完整消息之前就结束了。</translation>
    </message>
    <message>
        <source>JSON tree</source>
        <translation>JSON 树</translation>
    </message>
    <message>
        <source>JSON shown in the tree</source>
        <translation>树中显示的 JSON</translation>
    </message>
    <message>
        <source>S&amp;how:</source>
        <translation>显示(&amp;H)：</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Response</source>
        <translation>响应</translation>
    </message>
    <message>
        <source>Assembled</source>
        <translation>拼合结果</translation>
    </message>
    <message>
        <source>The assistant message put together from the streamed events: what the agent acted on</source>
        <translation>由流式事件拼合而成的助手消息：智能体据以行动的内容</translation>
    </message>
    <message>
        <source>Headers</source>
        <translation>标头</translation>
    </message>
    <message>
        <source>Tree</source>
        <translation>树</translation>
    </message>
    <message>
        <source>Copy the request body</source>
        <translation>复制请求正文</translation>
    </message>
    <message>
        <source>Copy the response body</source>
        <translation>复制响应正文</translation>
    </message>
    <message>
        <source>Copy a curl command that sends this request again; the key is written as $OPENAI_API_KEY</source>
        <translation>复制一条可重新发送此请求的 curl 命令；密钥以 $OPENAI_API_KEY 代替</translation>
    </message>
    <message>
        <source>Wrap long lines of the bodies and headers instead of scrolling sideways</source>
        <translation>正文和标头中的长行自动换行，而不是横向滚动</translation>
    </message>
    <message>
        <source>No request selected</source>
        <translation>未选择请求</translation>
    </message>
    <message>
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <source>no HTTP answer</source>
        <translation>无 HTTP 应答</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Request %1 · attempt %2</source>
        <translation>请求 %1 · 第 %2 次尝试</translation>
    </message>
    <message>
        <source>Request %1</source>
        <translation>请求 %1</translation>
    </message>
    <message>
        <source>%1 · %2 %3 · %4</source>
        <translation>%1 · %2 %3 · %4</translation>
    </message>
    <message>
        <source>Waiting for the response…</source>
        <translation>正在等待响应…</translation>
    </message>
    <message>
        <source>The run was stopped before a response arrived.</source>
        <translation>运行在收到响应之前就已停止。</translation>
    </message>
    <message>
        <source>The response had no body.</source>
        <translation>该响应没有正文。</translation>
    </message>
    <message>
        <source>(waiting for the response)</source>
        <translation>（正在等待响应）</translation>
    </message>
    <message>
        <source>(stopped before a response arrived)</source>
        <translation>（在收到响应前已停止）</translation>
    </message>
    <message>
        <source>No HTTP answer: %1</source>
        <translation>无 HTTP 应答：%1</translation>
    </message>
    <message>
        <source>Re&amp;quests</source>
        <translation>请求(&amp;Q)</translation>
    </message>
    <message>
        <source>The exact requests and responses of every turn</source>
        <translation>每一轮的确切请求和响应</translation>
    </message>
    <message>
        <source>&amp;Audit</source>
        <translation>审计(&amp;A)</translation>
    </message>
    <message>
        <source>Every call of this conversation: what was decided, by which rule or by you, and how it ended</source>
        <translation>本对话的每个调用：作出了什么决定、由哪条规则或由你决定，以及最终结果如何</translation>
    </message>
    <message>
        <source>Conversation totals</source>
        <translation>对话合计</translation>
    </message>
    <message>
        <source>This conversation&apos;s requests since it was opened in this window: how many, the time spent waiting for answers, the tokens the provider reported and, with prices in Settings › Context, what they cost</source>
        <translation>本对话自在此窗口中打开以来的请求：数量、等待回答所用的时间、提供方报告的 token 数，以及（在“设置 › 上下文”中设置价格后）费用</translation>
    </message>
    <message>
        <source>Nothing was sent: the protocol check above failed, so the loop stopped before the request.</source>
        <translation>什么都没有发送：上方的协议检查未通过，所以循环在请求之前就停止了。</translation>
    </message>
    <message>
        <source>not sent</source>
        <translation>未发送</translation>
    </message>
    <message>
        <source>Request %1 · not sent</source>
        <translation>请求 %1 · 未发送</translation>
    </message>
    <message>
        <source>Nothing was sent, so nothing came back.</source>
        <translation>什么都没有发送，所以也没有任何返回。</translation>
    </message>
    <message>
        <source>(nothing was sent)</source>
        <translation>（什么都没有发送）</translation>
    </message>
</context>
<context>
    <name>Gui::JsonDiffModel</name>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… 另有 %n 处</numerusform>
        </translation>
    </message>
    <message>
        <source>(whole document)</source>
        <translation>（整个文档）</translation>
    </message>
    <message>
        <source>Added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>Removed</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Changed</source>
        <translation>修改</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>原值</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新值</translation>
    </message>
</context>
<context>
    <name>Gui::JsonTreeModel</name>
    <message>
        <source>object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>array</source>
        <translation>数组</translation>
    </message>
    <message>
        <source>string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <source>number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>boolean</source>
        <translation>布尔值</translation>
    </message>
    <message>
        <source>null</source>
        <translation>null</translation>
    </message>
    <message>
        <source>Key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>类型</translation>
    </message>
</context>
<context>
    <name>Gui::MainWindow</name>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>新建对话(&amp;N)</translation>
    </message>
    <message>
        <source>Clear the conversation and its history</source>
        <translation>清空对话及其历史记录</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Inspector</source>
        <translation>检查器(&amp;I)</translation>
    </message>
    <message>
        <source>Show or hide the raw requests and responses of every turn</source>
        <translation>显示或隐藏每一轮的原始请求和响应</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Agent Loop</source>
        <translation>关于 Agent Loop(&amp;A)</translation>
    </message>
    <message>
        <source>Agent Loop — Demo</source>
        <translation>Agent Loop — 演示</translation>
    </message>
    <message>
        <source>Agent Loop</source>
        <translation>Agent Loop</translation>
    </message>
    <message>
        <source>Set a base URL, an API key and a model first.</source>
        <translation>请先设置基础 URL、API 密钥和模型。</translation>
    </message>
    <message>
        <source>About Agent Loop</source>
        <translation>关于 Agent Loop</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Agent Loop %1&lt;/h3&gt;&lt;p&gt;A desktop coding agent for OpenAI-compatible Chat Completions endpoints.&lt;/p&gt;&lt;p&gt;It sends your task with its tools to the model, shows you every command the model wants to run, runs it only after your yes, and feeds the result back, until the model answers. Every request and response is in the inspector.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Agent Loop %1&lt;/h3&gt;&lt;p&gt;面向 OpenAI 兼容 Chat Completions 端点的桌面编程智能体。&lt;/p&gt;&lt;p&gt;它把你的任务连同工具一起发给模型，把模型想运行的每条命令都展示给你，只在你同意后才运行，并把结果回填给模型，直到模型给出回答。每一次请求和响应都可以在检查器中查看。&lt;/p&gt;&lt;p&gt;基于 Qt %2 构建。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>&amp;Export conversation</source>
        <translation>导出对话(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Conversations</source>
        <translation>对话(&amp;C)</translation>
    </message>
    <message>
        <source>Show or hide the list of saved conversations</source>
        <translation>显示或隐藏已保存的对话列表</translation>
    </message>
    <message>
        <source>Opened “%1”</source>
        <translation>已打开“%1”</translation>
    </message>
    <message>
        <source>Exported to %1</source>
        <translation>已导出到 %1</translation>
    </message>
    <message>
        <source>Opening “%1”…</source>
        <translation>正在打开“%1”…</translation>
    </message>
    <message>
        <source>Opening the conversation…</source>
        <translation>正在打开对话…</translation>
    </message>
    <message>
        <source>Bug bundle saved to %1</source>
        <translation>错误报告包已保存到 %1</translation>
    </message>
</context>
<context>
    <name>Gui::McpElicitationDialog</name>
    <message>
        <source>&amp;Accept</source>
        <translation>接受(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Decline</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>%1 asks for information</source>
        <translation>%1 请求信息</translation>
    </message>
    <message>
        <source>The MCP server “%1” asks:</source>
        <translation>MCP 服务器“%1”询问：</translation>
    </message>
    <message>
        <source>What you enter goes to this server only. Decline or Cancel sends nothing.</source>
        <translation>您输入的内容只发送给此服务器。拒绝或取消不会发送任何内容。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>at least %1</source>
        <translation>至少 %1</translation>
    </message>
    <message>
        <source>at most %1</source>
        <translation>至多 %1</translation>
    </message>
    <message>
        <source>%1 (required):</source>
        <extracomment>A required field of an MCP server&apos;s form</extracomment>
        <translation>%1（必填）：</translation>
    </message>
    <message>
        <source>%1:</source>
        <translation>%1：</translation>
    </message>
    <message>
        <source>Fill in “%1”: the server needs it.</source>
        <translation>请填写“%1”：服务器需要它。</translation>
    </message>
    <message>
        <source>“%1” needs a whole number.</source>
        <translation>“%1”需要一个整数。</translation>
    </message>
    <message>
        <source>“%1” needs a number.</source>
        <translation>“%1”需要一个数字。</translation>
    </message>
    <message>
        <source>“%1” is out of its range.</source>
        <translation>“%1”超出了允许的范围。</translation>
    </message>
    <message>
        <source>“%1” needs at least %2 characters.</source>
        <translation>“%1”至少需要 %2 个字符。</translation>
    </message>
    <message>
        <source>“%1” holds the API key of one of your provider profiles: Agent Loop never sends it to an MCP server. If the server needs a key, give it one of its own in its configuration.</source>
        <translation>“%1”中含有您某个提供商配置的 API 密钥：Agent Loop 绝不会把它发送给 MCP 服务器。如果该服务器需要密钥，请在它的配置中为它设置专用的密钥。</translation>
    </message>
</context>
<context>
    <name>Gui::McpImportDialog</name>
    <message>
        <source>&amp;Open a file…</source>
        <translation>打开文件(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Import</source>
        <translation>导入(&amp;I)</translation>
    </message>
    <message>
        <source>Import MCP Servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <source>Paste an mcpServers block, or open a file: a Claude Desktop (claude_desktop_config.json) or Cursor (.cursor/mcp.json) configuration imports as it is. The servers are added to the app&apos;s servers, for every workspace.</source>
        <translation>粘贴 mcpServers 配置块，或打开文件：Claude Desktop（claude_desktop_config.json）或 Cursor（.cursor/mcp.json）的配置可以原样导入。这些服务器会加入应用的服务器，用于所有工作区。</translation>
    </message>
    <message>
        <source>Servers to import</source>
        <translation>要导入的服务器</translation>
    </message>
    <message>
        <source>Open an MCP configuration</source>
        <translation>打开 MCP 配置</translation>
    </message>
    <message>
        <source>JSON files (*.json);;All files (*)</source>
        <translation>JSON 文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%1 is too big for a configuration file.</source>
        <translation>%1 太大，不像是配置文件。</translation>
    </message>
    <message>
        <source>Could not read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Paste servers or open a file first.</source>
        <translation>请先粘贴服务器配置或打开文件。</translation>
    </message>
    <message>
        <source>Nothing was imported: %1</source>
        <translation>未导入任何内容：%1</translation>
    </message>
    <message>
        <source>Nothing was imported: there is no server in this text.</source>
        <translation>未导入任何内容：这段文本中没有服务器。</translation>
    </message>
    <message>
        <source>Servers found: %1.</source>
        <translation>找到的服务器：%1。</translation>
    </message>
    <message>
        <source>These replace the servers of the same name: %1.</source>
        <translation>以下服务器将替换同名服务器：%1。</translation>
    </message>
</context>
<context>
    <name>Gui::McpServerDialog</name>
    <message>
        <source>Add an MCP Server</source>
        <translation>添加 MCP 服务器</translation>
    </message>
    <message>
        <source>Edit the MCP Server</source>
        <translation>编辑 MCP 服务器</translation>
    </message>
    <message>
        <source>A program (standard input and output)</source>
        <translation>程序（标准输入和输出）</translation>
    </message>
    <message>
        <source>A URL (Streamable HTTP)</source>
        <translation>URL（Streamable HTTP）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation>命令(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Arguments (one per line):</source>
        <translation>参数（每行一个）(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Environment (KEY=VALUE lines):</source>
        <translation>环境变量（KEY=VALUE，每行一个）(&amp;E)：</translation>
    </message>
    <message>
        <source>${VAR} takes the value of VAR from the app&apos;s environment when the server starts (${VAR:-default} when it is unset); a missing variable is named and the server is not started. Servers never get the provider&apos;s API key.</source>
        <translation>服务器启动时，${VAR} 取应用环境中 VAR 的值（未设置时用 ${VAR:-默认值}）；缺少的变量会被指出，且服务器不会启动。服务器永远拿不到提供商的 API 密钥。</translation>
    </message>
    <message>
        <source>&amp;URL:</source>
        <translation>&amp;URL：</translation>
    </message>
    <message>
        <source>&amp;Headers (Name: value lines):</source>
        <translation>请求头（Name: value，每行一个）(&amp;H)：</translation>
    </message>
    <message>
        <source>${VAR} in the URL and the headers takes the value of VAR from the app&apos;s environment, so that a token need not be written here.</source>
        <translation>URL 和请求头中的 ${VAR} 取应用环境中 VAR 的值，这样令牌就不必写在这里。</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Reached as:</source>
        <translation>连接方式(&amp;R)：</translation>
    </message>
    <message>
        <source>A call may take &amp;up to:</source>
        <translation>单次调用最长(&amp;U)：</translation>
    </message>
    <message>
        <source>Give the server a name.</source>
        <translation>请为服务器命名。</translation>
    </message>
    <message>
        <source>Another server is named “%1”.</source>
        <translation>已有另一个服务器名为“%1”。</translation>
    </message>
    <message>
        <source>Enter the program that runs the server (npx, uvx, node, a path…).</source>
        <translation>请输入运行服务器的程序（npx、uvx、node、某个路径…）。</translation>
    </message>
    <message>
        <source>Enter the server&apos;s URL.</source>
        <translation>请输入服务器的 URL。</translation>
    </message>
    <message>
        <source>The URL must start with http:// or https://.</source>
        <translation>URL 必须以 http:// 或 https:// 开头。</translation>
    </message>
    <message>
        <source>“%1” is no KEY=VALUE line.</source>
        <translation>“%1”不是 KEY=VALUE 格式的行。</translation>
    </message>
    <message>
        <source>“%1” is no “Name: value” line.</source>
        <translation>“%1”不是“Name: value”格式的行。</translation>
    </message>
</context>
<context>
    <name>Gui::McpServers</name>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>1 tool</source>
        <translation>1 个工具</translation>
    </message>
    <message>
        <source>%1 tools</source>
        <translation>%1 个工具</translation>
    </message>
    <message>
        <source>(exit code %1)</source>
        <translation>（退出代码 %1）</translation>
    </message>
    <message>
        <source>MCP: %1/%2 ready</source>
        <extracomment>The status bar&apos;s MCP servers: &quot;MCP: 2/3 ready&quot;</extracomment>
        <translation>MCP：%1/%2 就绪</translation>
    </message>
    <message>
        <source>Click to open Settings › MCP servers.</source>
        <translation>单击打开“设置 › MCP 服务器”。</translation>
    </message>
</context>
<context>
    <name>Gui::McpServersPage</name>
    <message>
        <source>All workspaces</source>
        <translation>所有工作区</translation>
    </message>
    <message>
        <source>This workspace</source>
        <translation>此工作区</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>%1 (modern)</source>
        <extracomment>A protocol version and its era: &quot;2026-07-28 (modern)&quot;</extracomment>
        <translation>%1（新版）</translation>
    </message>
    <message>
        <source>%1 (legacy)</source>
        <extracomment>A protocol version and its era: &quot;2025-11-25 (legacy)&quot;</extracomment>
        <translation>%1（旧版）</translation>
    </message>
    <message>
        <source>A&amp;dd…</source>
        <translation>添加(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>Re&amp;move</source>
        <translation>移除(&amp;M)</translation>
    </message>
    <message>
        <source>Res&amp;tart</source>
        <translation>重新启动(&amp;T)</translation>
    </message>
    <message>
        <source>Disa&amp;ble</source>
        <translation>停用(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Import JSON…</source>
        <translation>导入 JSON(&amp;I)…</translation>
    </message>
    <message>
        <source>Trust and &amp;start this workspace&apos;s servers…</source>
        <translation>信任并启动此工作区的服务器(&amp;S)…</translation>
    </message>
    <message>
        <source>T&amp;rusted (read-only tools run without asking)</source>
        <translation>受信任（只读工具无需询问即可运行）(&amp;R)</translation>
    </message>
    <message>
        <source>Standard error</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Protocol</source>
        <translation>协议</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>A tool the server marks read-only (readOnlyHint) then runs without asking, unless a permission rule says otherwise. Tools that may change anything always ask.</source>
        <translation>服务器标记为只读（readOnlyHint）的工具将无需询问即可运行，除非权限规则另有规定。可能做出更改的工具总会询问。</translation>
    </message>
    <message>
        <source>Tools of the server</source>
        <translation>服务器的工具</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Approval</source>
        <translation>批准</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Servers</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Enabled: the server starts with the session.</source>
        <translation>启用：服务器随会话启动。</translation>
    </message>
    <message>
        <source>not trusted: not started</source>
        <translation>未受信任：未启动</translation>
    </message>
    <message>
        <source>replaced by this workspace&apos;s server of the same name</source>
        <translation>已被此工作区的同名服务器替换</translation>
    </message>
    <message>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <source>%1 (exit code %2): %3</source>
        <extracomment>A failed server&apos;s state: &quot;failed (exit code 1): &lt;why&gt;&quot;</extracomment>
        <translation>%1（退出代码 %2）：%3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>URL: %1</source>
        <translation>URL：%1</translation>
    </message>
    <message>
        <source>Runs: %1</source>
        <translation>运行：%1</translation>
    </message>
    <message>
        <source>Protocol: %1</source>
        <translation>协议：%1</translation>
    </message>
    <message>
        <source>server: %1 %2</source>
        <translation>服务器：%1 %2</translation>
    </message>
    <message>
        <source>read</source>
        <translation>读取</translation>
    </message>
    <message>
        <source>execute</source>
        <translation>执行</translation>
    </message>
    <message>
        <source>asks</source>
        <translation>会询问</translation>
    </message>
    <message>
        <source>Offered to the model as %1</source>
        <translation>以 %1 提供给模型</translation>
    </message>
    <message>
        <source>runs without asking</source>
        <translation>无需询问即运行</translation>
    </message>
    <message>
        <source>arguments not checked</source>
        <translation>参数未经检查</translation>
    </message>
    <message>
        <source>execute (destructive)</source>
        <translation>执行（破坏性）</translation>
    </message>
    <message>
        <source>Tools (%1)</source>
        <translation>工具（%1）</translation>
    </message>
    <message>
        <source>Ena&amp;ble</source>
        <translation>启用(&amp;B)</translation>
    </message>
    <message>
        <source>The app&apos;s servers cannot be used: %1</source>
        <translation>无法使用应用的服务器：%1</translation>
    </message>
    <message>
        <source>This workspace&apos;s servers cannot be used: %1</source>
        <translation>无法使用此工作区的服务器：%1</translation>
    </message>
    <message>
        <source>This workspace&apos;s .agentloop/mcp.json lists servers that have not been trusted in its present content: they do not start until you trust them.</source>
        <translation>此工作区的 .agentloop/mcp.json 列出的服务器在其当前内容下尚未受信任：在您信任之前它们不会启动。</translation>
    </message>
    <message>
        <source>Servers for all workspaces are kept in %1; this workspace&apos;s in %2. Changes on this page are saved at once.</source>
        <translation>用于所有工作区的服务器保存在 %1；此工作区的保存在 %2。此页上的更改会立即保存。</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
</context>
<context>
    <name>Gui::McpTrustPrompt</name>
    <message>
        <source>Start this workspace&apos;s MCP servers?</source>
        <translation>启动此工作区的 MCP 服务器？</translation>
    </message>
    <message>
        <source>This workspace&apos;s %1 asks to start these MCP servers. They are programs that run on this computer with your account&apos;s rights, or addresses that receive what the model sends them.</source>
        <translation>此工作区的 %1 要求启动以下 MCP 服务器。它们是以您的账户权限在这台计算机上运行的程序，或是会收到模型所发内容的地址。</translation>
    </message>
    <message>
        <source>Start them only if you trust this project. Nothing starts unless you say so; if the file changes, you are asked again.</source>
        <translation>只有在您信任此项目时才启动它们。未经您同意，任何服务器都不会启动；文件一旦更改，会再次询问您。</translation>
    </message>
    <message>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <source>runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>%1 (%2): %3</source>
        <extracomment>A server in the trust question: &quot;&lt;name&gt; (runs): &lt;command line&gt;&quot;</extracomment>
        <translation>%1（%2）：%3</translation>
    </message>
    <message>
        <source>[disabled in the file]</source>
        <translation>[在文件中已停用]</translation>
    </message>
    <message>
        <source>&amp;Start these servers</source>
        <translation>启动这些服务器(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Not now</source>
        <translation>暂不(&amp;N)</translation>
    </message>
    <message>
        <source>environment %1 = %2</source>
        <extracomment>An environment variable the server gets: &quot;environment NAME = ••••${VAR}&quot;</extracomment>
        <translation>环境变量 %1 = %2</translation>
    </message>
    <message>
        <source>header %1: %2</source>
        <extracomment>A header sent with every request: &quot;header Authorization: ••••${TOKEN}&quot;</extracomment>
        <translation>请求头 %1：%2</translation>
    </message>
    <message>
        <source>in the folder %1</source>
        <translation>在文件夹 %1 中运行</translation>
    </message>
    <message>
        <source>marked trusted in the file: its read-only tools would run without asking you</source>
        <translation>文件中将其标记为受信任：它的只读工具将不经询问直接运行</translation>
    </message>
    <message>
        <source>Servers, their command lines and what they are given</source>
        <translation>服务器、其命令行及提供给它们的内容</translation>
    </message>
</context>
<context>
    <name>Gui::PermissionsPage</name>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>This rule does not parse; it denies every call until fixed.</source>
        <translation>此规则无法解析；在修正之前，它会拒绝所有调用。</translation>
    </message>
    <message>
        <source>This rule does not parse; it denies every call of %1 until fixed.</source>
        <translation>此规则无法解析；在修正之前，它会拒绝 %1 的所有调用。</translation>
    </message>
    <message>
        <source>A&amp;dd…</source>
        <translation>添加(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation>删除(&amp;L)</translation>
    </message>
    <message>
        <source>Allow the built-in &amp;read-only commands without asking</source>
        <translation>不经询问即允许内置的只读命令(&amp;R)</translation>
    </message>
    <message>
        <source>Permission rules</source>
        <translation>权限规则</translation>
    </message>
    <message>
        <source>Effect</source>
        <translation>效果</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Unless the command has a redirection or a substitution:
%1</source>
        <translation>除非命令中含有重定向或替换：
%1</translation>
    </message>
    <message>
        <source>%1 and %2 more</source>
        <translation>%1，以及另外 %2 个</translation>
    </message>
    <message>
        <source>Sample call</source>
        <translation>示例调用</translation>
    </message>
    <message>
        <source>Recent decisions</source>
        <translation>最近的决定</translation>
    </message>
    <message>
        <source>Double-click a call to test it against the rules as edited</source>
        <translation>双击某个调用，用编辑后的规则测试它</translation>
    </message>
    <message>
        <source>Rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Test a call</source>
        <translation>测试调用</translation>
    </message>
    <message>
        <source>The rules are not saved: %1 %2 Your edits are still here: correct the problem and press OK again, or Cancel to keep the rules as they were.</source>
        <translation>规则未保存：%1 %2 你的编辑仍保留在此：请修正问题后再次点“确定”，或点“取消”保留原来的规则。</translation>
    </message>
    <message>
        <source>Rules for all workspaces are kept in %1; this workspace&apos;s in %2.</source>
        <translation>适用于所有工作区的规则保存在 %1；本工作区的规则保存在 %2。</translation>
    </message>
    <message>
        <source>%1 Until it is fixed, every call is denied.</source>
        <translation>%1 在修正之前，所有调用都会被拒绝。</translation>
    </message>
    <message>
        <source>%1 Until it is fixed, every call in this workspace is denied; rules cannot be added to it here.</source>
        <translation>%1 在修正之前，本工作区中的所有调用都会被拒绝；也无法在此处向其中添加规则。</translation>
    </message>
    <message>
        <source>Type a call as rules are written to see what these rules decide.</source>
        <translation>按规则的写法输入一个调用，即可查看这些规则会作出什么决定。</translation>
    </message>
    <message>
        <source>the defaults</source>
        <translation>默认设置</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 — decided by %2</source>
        <extracomment>The verdict of the rule test: &quot;Deny — decided by shell(rm:*) (All workspaces)&quot;</extracomment>
        <translation>%1 — 由 %2 决定</translation>
    </message>
    <message>
        <source>&amp;Trust this workspace&apos;s rules as listed here (I reviewed its allow rules)</source>
        <translation>信任此工作区列出的这些规则（我已检查其中的允许规则）(&amp;T)</translation>
    </message>
    <message>
        <source>Not used: this workspace&apos;s rules file was changed outside Agent Loop. Review it, then tick &quot;Trust this workspace&apos;s rules&quot; and press OK.</source>
        <translation>未使用：此工作区的规则文件在 Agent Loop 之外被修改过。请先检查，然后勾选“信任此工作区列出的这些规则”并点击“确定”。</translation>
    </message>
    <message>
        <source>This workspace&apos;s rules file was changed outside Agent Loop (a cloned repository or a command may have written it), so its allow rules, shown grey, are not used; its deny and ask rules are.</source>
        <translation>此工作区的规则文件在 Agent Loop 之外被修改过（可能来自克隆的仓库，或由某条命令写入），因此其中以灰色显示的允许规则不会使用；其拒绝和询问规则仍然生效。</translation>
    </message>
</context>
<context>
    <name>Gui::ProfileSwitcher</name>
    <message>
        <source>&amp;Provider</source>
        <translation>供应商(&amp;P)</translation>
    </message>
    <message>
        <source>Switch &amp;Profile…</source>
        <translation>切换配置(&amp;P)…</translation>
    </message>
    <message>
        <source>Provider profile</source>
        <translation>供应商配置</translation>
    </message>
    <message>
        <source>Switch the provider profile (Ctrl+Shift+P)</source>
        <translation>切换供应商配置（Ctrl+Shift+P）</translation>
    </message>
    <message>
        <source>Choose the provider profile the next run uses</source>
        <translation>选择下一次运行使用的供应商配置</translation>
    </message>
    <message>
        <source>&amp;Edit Profiles…</source>
        <translation>编辑配置(&amp;E)…</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>供应商</translation>
    </message>
</context>
<context>
    <name>Gui::PromptBar</name>
    <message>
        <source>&amp;Send</source>
        <translation>发送(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Tell the agent what to do. Enter sends, Shift+Enter starts a new line.</source>
        <translation>告诉智能体要做什么。按 Enter 发送，按 Shift+Enter 换行。</translation>
    </message>
    <message>
        <source>Send prompt</source>
        <translation>发送提示词</translation>
    </message>
    <message>
        <source>Send the prompt (Enter)</source>
        <translation>发送提示词（Enter）</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>Stop the run: abort the request or kill the running command (Esc)</source>
        <translation>停止运行：中止请求或终止正在运行的命令（Esc）</translation>
    </message>
    <message>
        <source>Waiting for the conversation being opened</source>
        <translation>正在等待打开中的对话</translation>
    </message>
</context>
<context>
    <name>Gui::ProtocolStrip</name>
    <message>
        <source>✓ %1</source>
        <translation>✓ %1</translation>
    </message>
    <message>
        <source>message %1</source>
        <translation>第 %1 条消息</translation>
    </message>
    <message>
        <source>✗ %1</source>
        <translation>✗ %1</translation>
    </message>
    <message>
        <source>✗ %1: %2</source>
        <translation>✗ %1：%2</translation>
    </message>
    <message>
        <source>Protocol check</source>
        <translation>协议检查</translation>
    </message>
    <message>
        <source>Repairs of the history</source>
        <translation>对历史的修复</translation>
    </message>
    <message>
        <source>What the app added to the history on its own since the request before: lines with + were added</source>
        <translation>自上一次请求以来应用自行添加到历史中的内容：以 + 开头的行是新增的</translation>
    </message>
    <message numerus="yes">
        <source>Protocol check before this request: all %n rules hold.</source>
        <translation>
            <numerusform>本次请求前的协议检查：全部 %n 条规则均通过。</numerusform>
        </translation>
    </message>
    <message>
        <source>Protocol check failed (%1): nothing was sent.</source>
        <translation>协议检查未通过（%1）：什么都没有发送。</translation>
    </message>
    <message>
        <source>Protocol check: %1 failed.</source>
        <translation>协议检查：%1 未通过。</translation>
    </message>
</context>
<context>
    <name>Gui::RawOutputDialog</name>
    <message>
        <source>&amp;Send correction to the model…</source>
        <translation>向模型发送更正(&amp;S)…</translation>
    </message>
    <message>
        <source>Raw output of %1</source>
        <translation>%1 的原始输出</translation>
    </message>
    <message>
        <source>Standard output</source>
        <translation>标准输出</translation>
    </message>
    <message>
        <source>Standard &amp;output</source>
        <translation>标准输出(&amp;O)</translation>
    </message>
    <message>
        <source>Standard error</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>Standard &amp;error</source>
        <translation>标准错误(&amp;E)</translation>
    </message>
    <message>
        <source>What was launched</source>
        <translation>启动的内容</translation>
    </message>
    <message>
        <source>&amp;Launch</source>
        <translation>启动(&amp;L)</translation>
    </message>
    <message>
        <source>Streams and launch</source>
        <translation>输出流与启动信息</translation>
    </message>
    <message>
        <source>As the model read it</source>
        <translation>按模型读到的方式</translation>
    </message>
    <message>
        <source>As the model read it (%1)</source>
        <translation>按模型读到的方式（%1）</translation>
    </message>
    <message>
        <source>Show the bytes decoded in another encoding</source>
        <translation>用另一种编码解码这些字节并显示</translation>
    </message>
    <message>
        <source>Decode as</source>
        <translation>解码为</translation>
    </message>
    <message>
        <source>&amp;Decode as:</source>
        <translation>解码为(&amp;D)：</translation>
    </message>
    <message>
        <source>Put the output, decoded as shown, into the prompt box as a correction for the model; it is sent with your next message</source>
        <translation>将按当前方式解码的输出作为给模型的更正放入输入框；它会随你的下一条消息一起发送</translation>
    </message>
    <message>
        <source>%1 in hex and as text</source>
        <translation>%1 的十六进制与文本</translation>
    </message>
    <message>
        <source>The bytes as the command wrote them, 16 a row, and the characters they decode to</source>
        <translation>命令写出的原始字节（每行 16 个）及其解码得到的字符</translation>
    </message>
    <message>
        <source>%1 as decoded text</source>
        <translation>%1 的解码文本</translation>
    </message>
    <message>
        <source>The whole text in the chosen encoding; control and invisible characters are shown as ⟨U+XXXX⟩</source>
        <translation>按所选编码解码的全部文本；控制字符和不可见字符显示为 ⟨U+XXXX⟩</translation>
    </message>
    <message>
        <source>Nothing was printed on this stream.</source>
        <translation>此输出流没有任何输出。</translation>
    </message>
    <message>
        <source>Decoded for the model as UTF-8: every byte was valid UTF-8, which the shell is told to write.</source>
        <translation>已按 UTF-8 解码后交给模型：所有字节都是有效的 UTF-8，这也是 shell 被要求输出的编码。</translation>
    </message>
    <message>
        <source>Decoded for the model as UTF-8: it began with a UTF-8 byte order mark (EF BB BF), which was dropped.</source>
        <translation>已按 UTF-8 解码后交给模型：输出以 UTF-8 字节顺序标记（EF BB BF）开头，该标记已去除。</translation>
    </message>
    <message>
        <source>Decoded for the model as %1: it began with a UTF-16 byte order mark.</source>
        <translation>已按 %1 解码后交给模型：输出以 UTF-16 字节顺序标记开头。</translation>
    </message>
    <message>
        <source>Decoded for the model as %1: every other byte of its beginning was zero, as in UTF-16 text without a byte order mark.</source>
        <translation>已按 %1 解码后交给模型：输出开头每隔一个字节就是零，与没有字节顺序标记的 UTF-16 文本一致。</translation>
    </message>
    <message>
        <source>Decoded for the model line by line: lines that were not valid UTF-8 as %1, the system&apos;s code page, the others as UTF-8.</source>
        <translation>已逐行解码后交给模型：不是有效 UTF-8 的行按系统代码页 %1 解码，其余行按 UTF-8 解码。</translation>
    </message>
    <message>
        <source>Decoded for the model as UTF-8, though it was not valid UTF-8: the system has no other code page to try, so invalid bytes became U+FFFD.</source>
        <translation>已按 UTF-8 解码后交给模型，但它不是有效的 UTF-8：系统没有其他可尝试的代码页，因此无效字节变成了 U+FFFD。</translation>
    </message>
    <message>
        <source>Decoded for the model as UTF-8, though it was not valid UTF-8: invalid bytes became U+FFFD.</source>
        <translation>已按 UTF-8 解码后交给模型，但它不是有效的 UTF-8：无效字节变成了 U+FFFD。</translation>
    </message>
    <message>
        <source>Shell: %1</source>
        <translation>Shell：%1</translation>
    </message>
    <message>
        <source>Program: %1</source>
        <translation>程序：%1</translation>
    </message>
    <message>
        <source>Command line (as given to the process, unquoted):</source>
        <translation>命令行（原样传给进程，未加引号）：</translation>
    </message>
    <message>
        <source>Arguments, each as given to the process:</source>
        <translation>参数（每项均原样传给进程）：</translation>
    </message>
    <message>
        <source>Working directory: %1</source>
        <translation>工作目录：%1</translation>
    </message>
    <message>
        <source>Environment: the app&apos;s own, unchanged</source>
        <translation>环境变量：与应用自身相同，未改动</translation>
    </message>
    <message>
        <source>Environment changes against the app&apos;s own:</source>
        <translation>相对于应用自身环境的改动：</translation>
    </message>
    <message>
        <source>  - %1 (removed)</source>
        <translation>  - %1（已移除）</translation>
    </message>
    <message>
        <source>  %1 %2 (value hidden)</source>
        <translation>  %1 %2（值已隐藏）</translation>
    </message>
    <message>
        <source>System code page for lines that are not UTF-8: %1</source>
        <translation>用于非 UTF-8 行的系统代码页：%1</translation>
    </message>
    <message>
        <source>Script file it ran (UTF-8 with a byte order mark), decoded:</source>
        <translation>运行的脚本文件（带字节顺序标记的 UTF-8），解码后：</translation>
    </message>
    <message>
        <source>Printed %1 in %2.</source>
        <translation>共输出 %1，分 %2 到达。</translation>
    </message>
    <message>
        <source>one read</source>
        <translation>1 次读取</translation>
    </message>
    <message>
        <source>%1 reads</source>
        <translation>%1 次读取</translation>
    </message>
    <message>
        <source>Only the first %1 are kept here; %2 more were not (the full output file has them).</source>
        <translation>这里只保留了前 %1；另有 %2 未保留（完整输出文件中有）。</translation>
    </message>
    <message>
        <source>The last read arrived %1 ms after the start.</source>
        <translation>最后一次读取在启动后 %1 毫秒到达。</translation>
    </message>
    <message>
        <source>PowerShell&apos;s CLIXML error records were turned into plain lines.</source>
        <translation>PowerShell 的 CLIXML 错误记录已转换为普通文本行。</translation>
    </message>
    <message>
        <source>[%1 more not shown]</source>
        <translation>[另有 %1 未显示]</translation>
    </message>
    <message>
        <source>Send correction to the model</source>
        <translation>向模型发送更正</translation>
    </message>
    <message>
        <source>Tell the model that this command&apos;s output reads as decoded with %1?</source>
        <translation>要告诉模型，这条命令的输出应按 %1 解码来读吗？</translation>
    </message>
    <message>
        <source>The tool result it has already read cannot be changed. The re-decoded text is put into the prompt box as a correction, and reaches the model with your next message.</source>
        <translation>模型已读到的工具结果无法更改。重新解码的文本会作为更正放入输入框，并随你的下一条消息发给模型。</translation>
    </message>
    <message>
        <source>Put into the &amp;prompt</source>
        <translation>放入输入框(&amp;P)</translation>
    </message>
</context>
<context>
    <name>Gui::RawOutputs</name>
    <message>
        <source>Show &amp;raw output…</source>
        <translation>显示原始输出(&amp;R)…</translation>
    </message>
    <message>
        <source>Show what the selected command launched and the bytes it printed</source>
        <translation>显示所选命令启动的内容及其输出的原始字节</translation>
    </message>
</context>
<context>
    <name>Gui::ReplayActions</name>
    <message>
        <source>&amp;Edit and Resend…</source>
        <translation>编辑并重发(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Fork from Here</source>
        <translation>从此处分叉(&amp;F)</translation>
    </message>
    <message>
        <source>Edit this request&apos;s body and send it on its own, to compare the answers; the conversation is not changed (Ctrl+E)</source>
        <translation>编辑此请求的正文并单独发送，以比较回答；对话不会被改动（Ctrl+E）</translation>
    </message>
    <message>
        <source>Start a new conversation whose history is this request&apos;s messages</source>
        <translation>以此请求的消息为历史开始新对话</translation>
    </message>
    <message>
        <source>Not while the agent is running: stop the run or wait for its end</source>
        <translation>智能体运行时不可用：请停止运行或等待其结束</translation>
    </message>
    <message>
        <source>Start a new conversation whose history is this request&apos;s messages; the next prompt continues from them (Ctrl+Shift+E)</source>
        <translation>以此请求的消息为历史开始新对话；下一条提示将从这些消息继续（Ctrl+Shift+E）</translation>
    </message>
    <message>
        <source>This request&apos;s messages cannot be read as a conversation:
%1</source>
        <translation>此请求的消息无法作为对话读取：
%1</translation>
    </message>
    <message>
        <source>%1 (fork)</source>
        <translation>%1（分叉）</translation>
    </message>
    <message>
        <source>The fork could not be saved: %1</source>
        <translation>无法保存分叉：%1</translation>
    </message>
</context>
<context>
    <name>Gui::ReplayDialog</name>
    <message>
        <source>… %1 more not shown</source>
        <translation>… 另有 %1 未显示</translation>
    </message>
    <message>
        <source>&amp;Send</source>
        <translation>发送(&amp;S)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>Original response</source>
        <translation>原响应</translation>
    </message>
    <message>
        <source>New response</source>
        <translation>新响应</translation>
    </message>
    <message>
        <source>Edit and Resend Request %1</source>
        <translation>编辑并重发请求 %1</translation>
    </message>
    <message>
        <source>Request body to send</source>
        <translation>要发送的请求正文</translation>
    </message>
    <message>
        <source>The request&apos;s exact JSON body; edit it, then send it on its own. The conversation is not changed.</source>
        <translation>请求的原始 JSON 正文；编辑后可单独发送。对话不会被改动。</translation>
    </message>
    <message>
        <source>Problems of the request body</source>
        <translation>请求正文的问题</translation>
    </message>
    <message>
        <source>Send this body to the provider as a side request (Ctrl+Enter)</source>
        <translation>将此正文作为旁路请求发送给提供方（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Abandon the side request</source>
        <translation>放弃旁路请求</translation>
    </message>
    <message>
        <source>The original request got no response body.</source>
        <translation>原请求没有收到响应正文。</translation>
    </message>
    <message>
        <source>Send the request to see its response here.</source>
        <translation>发送请求后，其响应显示在这里。</translation>
    </message>
    <message>
        <source>Differences between the responses</source>
        <translation>两个响应的差异</translation>
    </message>
    <message>
        <source>&amp;Request body:</source>
        <translation>请求正文(&amp;R)：</translation>
    </message>
    <message>
        <source>Close; a side request still going is abandoned</source>
        <translation>关闭；仍在进行的旁路请求将被放弃</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more problems</source>
        <translation>
            <numerusform>… 另有 %n 个问题</numerusform>
        </translation>
    </message>
    <message>
        <source>The body is a valid request.</source>
        <translation>正文是有效的请求。</translation>
    </message>
    <message>
        <source>Not JSON, cannot be sent: %1</source>
        <translation>不是 JSON，无法发送：%1</translation>
    </message>
    <message>
        <source>Send a Broken Request?</source>
        <translation>发送有问题的请求？</translation>
    </message>
    <message>
        <source>This body is not a valid Chat Completions request:

%1

The provider will probably refuse it. Send it anyway?</source>
        <translation>此正文不是有效的 Chat Completions 请求：

%1

提供方很可能会拒绝它。仍要发送吗？</translation>
    </message>
    <message>
        <source>Send &amp;Anyway</source>
        <translation>仍然发送(&amp;A)</translation>
    </message>
    <message>
        <source>Sending…</source>
        <translation>正在发送…</translation>
    </message>
    <message>
        <source>Stopped: the side request was abandoned.</source>
        <translation>已停止：旁路请求已放弃。</translation>
    </message>
    <message>
        <source>The responses are the same.</source>
        <translation>两个响应相同。</translation>
    </message>
    <message>
        <source>1 difference.</source>
        <translation>1 处差异。</translation>
    </message>
    <message numerus="yes">
        <source>%n differences.</source>
        <translation>
            <numerusform>%n 处差异。</numerusform>
        </translation>
    </message>
    <message>
        <source>A stream is compared by its assembled message.</source>
        <translation>流式响应按其组装出的消息比较。</translation>
    </message>
    <message>
        <source>HTTP %1 in %2 ms. %3</source>
        <translation>HTTP %1，用时 %2 毫秒。%3</translation>
    </message>
    <message>
        <source>The side request failed: %1</source>
        <translation>旁路请求失败：%1</translation>
    </message>
</context>
<context>
    <name>Gui::RuleDialog</name>
    <message>
        <source>Always allow</source>
        <translation>始终允许</translation>
    </message>
    <message>
        <source>&amp;Rules to add, one per line:</source>
        <translation>要添加的规则，每行一条(&amp;R)：</translation>
    </message>
    <message>
        <source>Rules to add</source>
        <translation>要添加的规则</translation>
    </message>
    <message>
        <source>A suggested rule contains invisible or control characters, as the command does.</source>
        <translation>与该命令一样，某条建议的规则中含有不可见字符或控制字符。</translation>
    </message>
    <message>
        <source>Where the rules apply:</source>
        <translation>规则的适用范围：</translation>
    </message>
    <message>
        <source>&amp;All workspaces</source>
        <translation>所有工作区(&amp;A)</translation>
    </message>
    <message>
        <source>Saved in %1</source>
        <translation>保存在 %1</translation>
    </message>
    <message>
        <source>This &amp;workspace</source>
        <translation>此工作区(&amp;W)</translation>
    </message>
    <message>
        <source>No workspace is open.</source>
        <translation>没有打开的工作区。</translation>
    </message>
    <message>
        <source>This &amp;conversation only</source>
        <translation>仅限本对话(&amp;C)</translation>
    </message>
    <message>
        <source>Not saved: the rules end with this conversation.</source>
        <translation>不保存：这些规则随本对话结束而失效。</translation>
    </message>
    <message>
        <source>Add at least one rule.</source>
        <translation>请至少添加一条规则。</translation>
    </message>
    <message>
        <source>At most %1 rules can be added at once.</source>
        <translation>一次最多只能添加 %1 条规则。</translation>
    </message>
    <message>
        <source>Rule %1 is longer than %2 characters.</source>
        <translation>第 %1 条规则超过了 %2 个字符。</translation>
    </message>
    <message>
        <source>Rule %1 (%2): %3</source>
        <translation>第 %1 条规则（%2）：%3</translation>
    </message>
    <message>
        <source>These rules would not allow this call.</source>
        <translation>这些规则不会允许此调用。</translation>
    </message>
    <message>
        <source>These rules would not allow this call: %1</source>
        <translation>这些规则不会允许此调用：%1</translation>
    </message>
    <message>
        <source>&amp;Allow</source>
        <translation>允许(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Rules cannot be saved here.</source>
        <translation>无法在此处保存规则。</translation>
    </message>
    <message>
        <source>The rules could not be saved: %1

Nothing was allowed. Fix the file, or choose “This conversation only”.</source>
        <translation>无法保存规则：%1

没有允许任何调用。请修正该文件，或选择“仅限本对话”。</translation>
    </message>
</context>
<context>
    <name>Gui::RuleEditDialog</name>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Built-in</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>All workspaces</source>
        <translation>所有工作区</translation>
    </message>
    <message>
        <source>This workspace</source>
        <translation>此工作区</translation>
    </message>
    <message>
        <source>Command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <source>This conversation</source>
        <translation>本对话</translation>
    </message>
    <message>
        <source>Add a Rule</source>
        <translation>添加规则</translation>
    </message>
    <message>
        <source>Edit the Rule</source>
        <translation>编辑规则</translation>
    </message>
    <message>
        <source>tool(pattern): shell(git status), shell(npm run test:*), read_file(src/**), edit_file(**/*.md); a tool alone (shell) is every call of it. `:*` at the end allows further arguments, `*` matches within one argument.</source>
        <translation>tool(pattern)：shell(git status)、shell(npm run test:*)、read_file(src/**)、edit_file(**/*.md)；只写工具名（shell）表示该工具的所有调用。末尾的 `:*` 允许其后再跟其他参数，`*` 只在单个参数内匹配。</translation>
    </message>
    <message>
        <source>This workspace&apos;s rules file cannot be read: fix it first</source>
        <translation>无法读取此工作区的规则文件：请先修复它</translation>
    </message>
    <message>
        <source>&amp;Effect:</source>
        <translation>效果(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Rule:</source>
        <translation>规则(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Where:</source>
        <translation>范围(&amp;W)：</translation>
    </message>
</context>
<context>
    <name>Gui::RunFeed</name>
    <message>
        <source>%1 The run goes on, but this conversation is not saved from here on.</source>
        <translation>%1 运行会继续，但从此处起本对话不再保存。</translation>
    </message>
    <message>
        <source>Repaired: %1</source>
        <translation>已修复：%1</translation>
    </message>
    <message>
        <source>%1 New messages in this conversation are not saved.</source>
        <translation>%1 本对话中的新消息不会被保存。</translation>
    </message>
    <message>
        <source>Assistant: %1</source>
        <translation>助手：%1</translation>
    </message>
    <message>
        <source>Tool call %1: %2</source>
        <translation>工具调用 %1：%2</translation>
    </message>
    <message>
        <source>Result of %1 (now a stub; the whole output is in %2):</source>
        <translation>%1 的结果（现为存根；完整输出在 %2）：</translation>
    </message>
    <message>
        <source>Result of %1:</source>
        <translation>%1 的结果：</translation>
    </message>
    <message>
        <source>[%1 more not shown here]</source>
        <translation>[另有 %1 条未在此显示]</translation>
    </message>
    <message>
        <source>About %1 → %2 tokens.</source>
        <translation>约 %1 → %2 个 token。</translation>
    </message>
    <message>
        <source>Long tool outputs are replaced by stubs in the requests from here on.</source>
        <translation>从这里起，请求中很长的工具输出被替换为存根。</translation>
    </message>
    <message>
        <source>Summarised by %1 for the requests from here on.</source>
        <translation>由 %1 摘要，用于从这里起的请求。</translation>
    </message>
    <message>
        <source>What the model reads instead:</source>
        <translation>模型改为读取：</translation>
    </message>
    <message>
        <source>The original messages:</source>
        <translation>原始消息：</translation>
    </message>
</context>
<context>
    <name>Gui::SettingsDialog</name>
    <message>
        <source>Show the key</source>
        <translation>显示密钥</translation>
    </message>
    <message>
        <source>Choose the folder the agent works in.</source>
        <translation>选择智能体工作所在的文件夹。</translation>
    </message>
    <message>
        <source>The folder %1 does not exist.</source>
        <translation>文件夹 %1 不存在。</translation>
    </message>
    <message>
        <source>Key storage: not stored; %1 supplies it at every start.</source>
        <translation>密钥存储：不保存；每次启动时由 %1 提供。</translation>
    </message>
    <message>
        <source>Key storage: Settings file (plain text)</source>
        <translation>密钥存储：设置文件（明文）</translation>
    </message>
    <message>
        <source>Key storage: System credential store</source>
        <translation>密钥存储：系统凭据存储</translation>
    </message>
    <message>
        <source>Key storage: This session only — no credential store is reachable</source>
        <translation>密钥存储：仅限本次会话——无法访问系统凭据存储</translation>
    </message>
    <message>
        <source>Key storage: checking the system credential store…</source>
        <translation>密钥存储：正在检查系统凭据存储…</translation>
    </message>
    <message>
        <source>Warning: anyone who can read %1 can read the key. Use it only on a machine you trust.</source>
        <translation>警告：任何能读取 %1 的人都能读取该密钥。请只在你信任的计算机上使用此选项。</translation>
    </message>
    <message>
        <source>Not needed: the system credential store keeps the key safe.</source>
        <translation>无需勾选：系统凭据存储会妥善保管密钥。</translation>
    </message>
    <message>
        <source>Hide the key</source>
        <translation>隐藏密钥</translation>
    </message>
    <message>
        <source>Choose the workspace folder</source>
        <translation>选择工作区文件夹</translation>
    </message>
    <message>
        <source>Bearer token (Authorization header)</source>
        <translation>Bearer 令牌（Authorization 请求头）</translation>
    </message>
    <message>
        <source>api-key header (Azure)</source>
        <translation>api-key 请求头（Azure）</translation>
    </message>
    <message>
        <source>None (a local server)</source>
        <translation>无（本地服务器）</translation>
    </message>
    <message>
        <source>Provider default</source>
        <translation>供应商默认</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <extracomment>A preset in the &quot;New from preset&quot; menu: its name, then its base URL</extracomment>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>(local, no key)</source>
        <translation>（本地，无需密钥）</translation>
    </message>
    <message>
        <source>(local)</source>
        <translation>（本地）</translation>
    </message>
    <message>
        <source>Get a key at %1</source>
        <extracomment>%1 is a link to the provider&apos;s page where keys are made</extracomment>
        <translation>在 %1 获取密钥</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>%1 (copy)</source>
        <extracomment>The name of a duplicated profile: %1 is the original&apos;s</extracomment>
        <translation>%1（副本）</translation>
    </message>
    <message>
        <source>Rename Profile</source>
        <translation>重命名配置</translation>
    </message>
    <message>
        <source>New name:</source>
        <translation>新名称：</translation>
    </message>
    <message>
        <source>Remove Profile</source>
        <translation>删除配置</translation>
    </message>
    <message>
        <source>Remove the profile “%1” and its key?</source>
        <translation>删除配置“%1”及其密钥?</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Replace the parts in &lt;angle brackets&gt; of the base URL with your own values.</source>
        <translation>请把基础 URL 中尖括号 &lt;&gt; 内的部分替换成你自己的值。</translation>
    </message>
    <message>
        <source>Testing %1…</source>
        <translation>正在测试 %1…</translation>
    </message>
    <message>
        <source>1 model listed</source>
        <translation>列出了 1 个模型</translation>
    </message>
    <message>
        <source>%1 models listed</source>
        <translation>列出了 %1 个模型</translation>
    </message>
    <message>
        <source>Key storage: %1</source>
        <translation>密钥存储：%1</translation>
    </message>
    <message>
        <source>Permissions</source>
        <translation>权限</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
</context>
<context>
    <name>Gui::TimelineDock</name>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>&amp;Timeline</source>
        <translation>时间线(&amp;T)</translation>
    </message>
    <message>
        <source>Show or hide the requests, approvals and tool runs over time</source>
        <translation>显示或隐藏请求、审批和工具运行的时间线</translation>
    </message>
</context>
<context>
    <name>Gui::TimelinePanel</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Zoom out (Ctrl+wheel, -)</source>
        <translation>缩小（Ctrl+滚轮，-）</translation>
    </message>
    <message>
        <source>Zoom in (Ctrl+wheel, +)</source>
        <translation>放大（Ctrl+滚轮，+）</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适应</translation>
    </message>
    <message>
        <source>Show the whole conversation (0)</source>
        <translation>显示整个对话（0）</translation>
    </message>
    <message>
        <source>Timeline summary</source>
        <translation>时间线摘要</translation>
    </message>
    <message>
        <source>1 request</source>
        <translation>1 个请求</translation>
    </message>
    <message>
        <source>%1 requests</source>
        <translation>%1 个请求</translation>
    </message>
    <message>
        <source>1 retry</source>
        <translation>1 次重试</translation>
    </message>
    <message>
        <source>%1 retries</source>
        <translation>%1 次重试</translation>
    </message>
    <message>
        <source>Model %1 · Approvals %2 · Tools %3 · Tokens %4 in, %5 out · %6, %7</source>
        <translation>模型 %1 · 审批 %2 · 工具 %3 · 令牌 输入 %4，输出 %5 · %6，%7</translation>
    </message>
</context>
<context>
    <name>Gui::TimelineView</name>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Requests, approvals and tool runs of the conversation over time</source>
        <translation>对话中的请求、审批和工具运行随时间的分布</translation>
    </message>
    <message>
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Summary request</source>
        <translation>摘要请求</translation>
    </message>
    <message>
        <source>Continuation request</source>
        <translation>续写请求</translation>
    </message>
    <message>
        <source>Approval wait</source>
        <translation>等待审批</translation>
    </message>
    <message>
        <source>Tool run</source>
        <translation>工具运行</translation>
    </message>
    <message>
        <source>Retry wait</source>
        <translation>等待重试</translation>
    </message>
    <message>
        <source>Compaction</source>
        <translation>压缩</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Request %1</source>
        <translation>请求 %1</translation>
    </message>
    <message>
        <source>Attempt %1</source>
        <translation>第 %1 次尝试</translation>
    </message>
    <message>
        <source>Running for %1</source>
        <translation>已运行 %1</translation>
    </message>
    <message>
        <source>Took %1</source>
        <translation>耗时 %1</translation>
    </message>
    <message>
        <source>First byte after %1</source>
        <translation>首字节用时 %1</translation>
    </message>
    <message>
        <source>No answer yet</source>
        <translation>尚无回答</translation>
    </message>
    <message>
        <source>Tokens: %1 in, %2 out</source>
        <translation>令牌：输入 %1，输出 %2</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Ended with an error</source>
        <translation>以错误结束</translation>
    </message>
    <message>
        <source>#%1</source>
        <translation>#%1</translation>
    </message>
    <message>
        <source>App</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
</context>
<context>
    <name>Gui::TurnModel</name>
    <message>
        <source>Prompt: %1 tokens
Completion: %2 tokens
Total: %3 tokens</source>
        <translation>提示词：%1 个 token
补全：%2 个 token
总计：%3 个 token</translation>
    </message>
    <message>
        <source>Request %1, attempt %2 (turn %3 of its run), sent %4</source>
        <translation>请求 %1，第 %2 次尝试（所属运行的第 %3 轮），发送于 %4</translation>
    </message>
    <message>
        <source>%1 · attempt %2</source>
        <translation>%1 · 第 %2 次尝试</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>无应答</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 + %2 = %3</source>
        <translation>%1 + %2 = %3</translation>
    </message>
    <message>
        <source>Prompt + completion = total tokens, when the provider reports usage</source>
        <translation>提示词 + 补全 = 总 token 数（供应商报告用量时显示）</translation>
    </message>
    <message>
        <source>#</source>
        <extracomment>Column header: the request number</extracomment>
        <translation>#</translation>
    </message>
    <message>
        <source>HTTP</source>
        <translation>HTTP</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Finish</source>
        <extracomment>Column header: the response&apos;s finish_reason (stop, tool_calls, ...)</extracomment>
        <translation>结束原因</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>Token</translation>
    </message>
    <message>
        <source>%1 · compaction</source>
        <translation>%1 · 压缩</translation>
    </message>
    <message>
        <source>%1 · continuation</source>
        <translation>%1 · 继续</translation>
    </message>
    <message>
        <source>Model</source>
        <extracomment>Column header: the model the request asked for</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <source>No price for %1 (Settings › Context)</source>
        <translation>%1 没有价格（设置 › 上下文）</translation>
    </message>
    <message>
        <source>%1 prompt tokens at %2 per million + %3 completion tokens at %4 per million</source>
        <translation>%1 个提示 token，每百万 %2 + %3 个补全 token，每百万 %4</translation>
    </message>
    <message>
        <source>Latency: from sending the request to the first byte of the answer</source>
        <translation>延迟：从发出请求到收到回答的第一个字节</translation>
    </message>
    <message>
        <source>Total time: from sending the request to the last byte of the answer</source>
        <translation>总时间：从发出请求到收到回答的最后一个字节</translation>
    </message>
    <message>
        <source>What the answer&apos;s tokens cost at the prices in Settings › Context</source>
        <translation>按“设置 › 上下文”中的价格，此回答的 token 费用</translation>
    </message>
    <message>
        <source>First byte</source>
        <extracomment>Column header: latency to the answer&apos;s first byte</extracomment>
        <translation>首字节</translation>
    </message>
    <message>
        <source>Cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>No requests yet</source>
        <translation>尚无请求</translation>
    </message>
    <message>
        <source>1 request</source>
        <translation>1 个请求</translation>
    </message>
    <message numerus="yes">
        <source>%n requests</source>
        <translation>
            <numerusform>%n 个请求</numerusform>
        </translation>
    </message>
    <message>
        <source>1 retry</source>
        <translation>1 次重试</translation>
    </message>
    <message numerus="yes">
        <source>%n retries</source>
        <translation>
            <numerusform>%n 次重试</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 waiting for the model</source>
        <translation>等待模型 %1</translation>
    </message>
    <message>
        <source>%1 tokens in · %2 out</source>
        <translation>输入 %1 token · 输出 %2</translation>
    </message>
    <message>
        <source>≥ %1</source>
        <translation>≥ %1</translation>
    </message>
    <message>
        <source>Request %1 was not sent: a protocol rule failed</source>
        <translation>请求 %1 未发送：有一条协议规则未通过</translation>
    </message>
    <message>
        <source>not sent</source>
        <translation>未发送</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <source>Message %1 is not a JSON object.</source>
        <translation>第 %1 条消息不是 JSON 对象。</translation>
    </message>
    <message>
        <source>missing tool results for ids: %1</source>
        <translation>缺少以下 id 的工具结果：%1</translation>
    </message>
    <message>
        <source>duplicate tool results for ids: %1</source>
        <translation>以下 id 的工具结果重复：%1</translation>
    </message>
    <message>
        <source>tool results without a matching tool call for ids: %1</source>
        <translation>以下 id 的工具结果没有对应的工具调用：%1</translation>
    </message>
    <message>
        <source>duplicate tool call ids in one assistant message: %1</source>
        <translation>同一条 assistant 消息中有重复的工具调用 id：%1</translation>
    </message>
    <message>
        <source>Every tool call must be answered by exactly one tool message before the next request; nothing was sent.</source>
        <translation>发出下一次请求之前，每个工具调用都必须有且只有一条对应的 tool 消息；本次未发送任何内容。</translation>
    </message>
</context>
<context>
    <name>McpConfig</name>
    <message>
        <source>MCP server “%1”: %2</source>
        <translation>MCP 服务器“%1”：%2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>“%1” must be a string.</source>
        <translation>“%1”必须是字符串。</translation>
    </message>
    <message>
        <source>“%1” must be a list of strings.</source>
        <translation>“%1”必须是字符串列表。</translation>
    </message>
    <message>
        <source>“%1” must be an object of strings.</source>
        <translation>“%1”必须是值为字符串的对象。</translation>
    </message>
    <message>
        <source>“%1” must be true or false.</source>
        <translation>“%1”必须是 true 或 false。</translation>
    </message>
    <message>
        <source>the entry must be an object with “command” or “url”.</source>
        <translation>条目必须是带有“command”或“url”的对象。</translation>
    </message>
    <message>
        <source>it has neither “command” (a program to start) nor “url” (an HTTP server).</source>
        <translation>它既没有“command”（要启动的程序），也没有“url”（HTTP 服务器）。</translation>
    </message>
    <message>
        <source>“type” must be stdio, http, streamable-http or sse, not “%1”.</source>
        <translation>“type”必须是 stdio、http、streamable-http 或 sse，而不是“%1”。</translation>
    </message>
    <message>
        <source>“command” is missing: a stdio server needs a program to start.</source>
        <translation>缺少“command”：stdio 服务器需要一个要启动的程序。</translation>
    </message>
    <message>
        <source>“url” is missing: an HTTP server needs its address.</source>
        <translation>缺少“url”：HTTP 服务器需要其地址。</translation>
    </message>
    <message>
        <source>“timeoutMs” must be a whole number of milliseconds from 1 to 86400000.</source>
        <translation>“timeoutMs”必须是 1 到 86400000 之间的整数毫秒数。</translation>
    </message>
    <message>
        <source>The MCP configuration</source>
        <translation>MCP 配置</translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2 at offset %3.</source>
        <translation>%1 不是有效的 JSON：偏移 %3 处%2。</translation>
    </message>
    <message>
        <source>%1 must be a JSON object with “mcpServers”.</source>
        <translation>%1 必须是带有“mcpServers”的 JSON 对象。</translation>
    </message>
    <message>
        <source>%1: “mcpServers” must be an object of servers by name, e.g. {&quot;mcpServers&quot;: {&quot;files&quot;: {&quot;command&quot;: &quot;npx&quot;}}}.</source>
        <translation>%1：“mcpServers”必须是按名称列出服务器的对象，例如 {&quot;mcpServers&quot;: {&quot;files&quot;: {&quot;command&quot;: &quot;npx&quot;}}}。</translation>
    </message>
    <message>
        <source>%1: a server has an empty name.</source>
        <translation>%1：有一个服务器的名称为空。</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>Cannot create the folder of %1.</source>
        <translation>无法创建 %1 所在的文件夹。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>%1 is not set (used in %2)</source>
        <translation>%1 未设置（用于 %2）</translation>
    </message>
    <message>
        <source>Set the variable in the environment Agent Loop starts from, or write ${NAME:-default} for a default; the server is not started until then.</source>
        <translation>请在启动 Agent Loop 的环境中设置该变量，或写成 ${NAME:-默认值} 以提供默认值；在此之前服务器不会启动。</translation>
    </message>
    <message>
        <source>it is larger than 1 MB</source>
        <translation>它大于 1 MB</translation>
    </message>
</context>
<context>
    <name>McpTool</name>
    <message>
        <source>The tool “%1” of the MCP server “%2” runs only when you approve it. Its description: %3</source>
        <translation>MCP 服务器“%2”的工具“%1”只有在您批准后才会运行。其说明：%3</translation>
    </message>
    <message>
        <source>The arguments were not checked against the tool&apos;s schema: it uses %1, which Agent Loop cannot check.</source>
        <translation>参数没有按工具的模式检查：它使用了 %1，Agent Loop 无法检查。</translation>
    </message>
</context>
<context>
    <name>Message</name>
    <message>
        <source>Malformed message: %1</source>
        <translation>消息格式错误：%1</translation>
    </message>
    <message>
        <source>a tool call has no id</source>
        <translation>有工具调用缺少 id</translation>
    </message>
    <message>
        <source>tool call %1 has no function name</source>
        <translation>工具调用 %1 缺少函数名</translation>
    </message>
    <message>
        <source>tool call %1 has arguments that are neither text nor an object</source>
        <translation>工具调用 %1 的参数既不是文本也不是对象</translation>
    </message>
    <message>
        <source>&quot;content&quot; must be text or null</source>
        <translation>&quot;content&quot; 必须是文本或 null</translation>
    </message>
    <message>
        <source>a tool message has no tool_call_id</source>
        <translation>有 tool 消息缺少 tool_call_id</translation>
    </message>
    <message>
        <source>unknown role &quot;%1&quot;</source>
        <translation>未知角色 &quot;%1&quot;</translation>
    </message>
</context>
<context>
    <name>PermissionRules</name>
    <message>
        <source>A rule is a tool name, alone for every call of the tool or followed by a pattern in parentheses: shell, shell(git status), shell(npm run test:*), read_file(src/**).</source>
        <translation>规则是一个工具名：单独使用表示该工具的所有调用，也可在其后跟一个括号括起的模式：shell、shell(git status)、shell(npm run test:*)、read_file(src/**)。</translation>
    </message>
    <message>
        <source>&quot;:*&quot; may only end a shell pattern: it stands for any further arguments.</source>
        <translation>&quot;:*&quot; 只能出现在 shell 模式的末尾：它代表任意后续参数。</translation>
    </message>
    <message>
        <source>A quote (%1) in the pattern is never closed.</source>
        <translation>模式中的引号（%1）没有闭合。</translation>
    </message>
    <message>
        <source>The shell pattern names no program: write the command it allows, such as git status or npm run test:*.</source>
        <translation>shell 模式没有指明程序：请写出它所允许的命令，例如 git status 或 npm run test:*。</translation>
    </message>
    <message>
        <source>%1: denied by %2</source>
        <translation>%1：被 %2 拒绝</translation>
    </message>
    <message>
        <source>%1 is denied by %2.</source>
        <translation>%1 被 %2 拒绝。</translation>
    </message>
    <message>
        <source>%1: may match the deny rule %2 once the shell expands it</source>
        <translation>%1：经 shell 展开后可能匹配拒绝规则 %2</translation>
    </message>
    <message>
        <source>%1 may match the deny rule %2 once the shell expands it, so it is asked.</source>
        <translation>%1 经 shell 展开后可能匹配拒绝规则 %2，因此需要询问。</translation>
    </message>
    <message>
        <source>%1: asked by %2</source>
        <translation>%1：因 %2 需要询问</translation>
    </message>
    <message>
        <source>%1 is asked by %2.</source>
        <translation>%1 因 %2 需要询问。</translation>
    </message>
    <message>
        <source>%1: sets variables that change what programs do; no rule allows that</source>
        <translation>%1：设置了会改变程序行为的变量；没有规则能允许这种操作</translation>
    </message>
    <message>
        <source>%1 sets variables that change what programs do, which no rule allows.</source>
        <translation>%1 设置了会改变程序行为的变量，没有规则能允许这种操作。</translation>
    </message>
    <message>
        <source>%1: allowed by %2</source>
        <translation>%1：被 %2 允许</translation>
    </message>
    <message>
        <source>%1: runs its arguments as code, so only an exact rule allows it, not %2</source>
        <translation>%1：会把其参数当作代码运行，因此只有精确规则能允许它，%2 不行</translation>
    </message>
    <message>
        <source>%1 runs its arguments as code, so only an exact rule can allow it, not %2.</source>
        <translation>%1 会把其参数当作代码运行，因此只有精确规则才能允许它，%2 不行。</translation>
    </message>
    <message>
        <source>%1: the read-only command %2 is void here (a redirection, a substitution, an unknown word, an option that writes or runs something, or a path outside the workspace)</source>
        <translation>%1：只读命令 %2 在此处无效（存在重定向、替换、未知单词、会写入或运行内容的选项，或工作区之外的路径）</translation>
    </message>
    <message>
        <source>%1 is not read-only here: the built-in %2 does not apply with a redirection, a substitution, an unknown word, an option that writes or runs something, or a path outside the workspace.</source>
        <translation>%1 在此处不是只读的：存在重定向、替换、未知单词、会写入或运行内容的选项，或工作区之外的路径时，内置的 %2 不适用。</translation>
    </message>
    <message>
        <source>%1: no allow rule matches</source>
        <translation>%1：没有匹配的允许规则</translation>
    </message>
    <message>
        <source>%1 matches no allow rule.</source>
        <translation>%1 不匹配任何允许规则。</translation>
    </message>
    <message>
        <source>%1: writes files that cannot be told before it runs</source>
        <translation>%1：会写入运行前无法确定的文件</translation>
    </message>
    <message>
        <source>%1 writes files that cannot be told before it runs, so no rule can allow it.</source>
        <translation>%1 会写入运行前无法确定的文件，因此没有规则能允许它。</translation>
    </message>
    <message>
        <source>Not split with certainty: %1</source>
        <translation>未能确切拆分：%1</translation>
    </message>
    <message>
        <source>The command could not be split with certainty, so no rule can allow it: %1</source>
        <translation>无法确切地拆分该命令，因此没有规则能允许它：%1</translation>
    </message>
    <message>
        <source>%1: writes a file only known when it runs; no rule can allow it</source>
        <translation>%1：写入的文件要到运行时才能确定；没有规则能允许它</translation>
    </message>
    <message>
        <source>%1 writes a file that is only known when it runs, so no rule can allow it.</source>
        <translation>%1 写入的文件要到运行时才能确定，因此没有规则能允许它。</translation>
    </message>
    <message>
        <source>%1: writes outside the workspace (or where no tool may write); no rule can allow it</source>
        <translation>%1：写入工作区之外（或任何工具都不可写入的位置）；没有规则能允许它</translation>
    </message>
    <message>
        <source>%1 writes outside the workspace (or where no tool may write), so no rule can allow it.</source>
        <translation>%1 写入工作区之外（或任何工具都不可写入的位置），因此没有规则能允许它。</translation>
    </message>
    <message>
        <source>%1: writes %2, denied by %3</source>
        <translation>%1：写入 %2，被 %3 拒绝</translation>
    </message>
    <message>
        <source>%1 writes %2, which %3 denies.</source>
        <translation>%1 写入 %2，而 %3 拒绝这样做。</translation>
    </message>
    <message>
        <source>%1: writes %2, asked by %3</source>
        <translation>%1：写入 %2，因 %3 需要询问</translation>
    </message>
    <message>
        <source>%1 writes %2, which %3 asks about.</source>
        <translation>%1 写入 %2，而 %3 要求对此进行询问。</translation>
    </message>
    <message>
        <source>%1: writes %2, allowed by %3</source>
        <translation>%1：写入 %2，被 %3 允许</translation>
    </message>
    <message>
        <source>%1: writes %2; no write_file rule allows it</source>
        <translation>%1：写入 %2；没有 write_file 规则允许它</translation>
    </message>
    <message>
        <source>%1 writes %2, which no write_file rule allows.</source>
        <translation>%1 写入 %2，而没有任何 write_file 规则允许这样做。</translation>
    </message>
    <message>
        <source>%1: outside the workspace; no rule applies (the tool refuses it)</source>
        <translation>%1：位于工作区之外；没有规则适用（工具会拒绝它）</translation>
    </message>
    <message>
        <source>%1 is outside the workspace: no rule applies, and the tool refuses it.</source>
        <translation>%1 位于工作区之外：没有规则适用，工具也会拒绝它。</translation>
    </message>
    <message>
        <source>%1: a folder that may hold paths %2 covers</source>
        <translation>%1：一个可能包含 %2 所覆盖路径的文件夹</translation>
    </message>
    <message>
        <source>%1 is a folder that may hold paths %2 covers, so it is asked.</source>
        <translation>%1 是一个可能包含 %2 所覆盖路径的文件夹，因此需要询问。</translation>
    </message>
    <message>
        <source>%1: read inside the workspace, allowed by default</source>
        <translation>%1：在工作区内读取，默认允许</translation>
    </message>
    <message>
        <source>Allowed by %1.</source>
        <translation>被 %1 允许。</translation>
    </message>
    <message>
        <source>Every part is allowed: %1.</source>
        <translation>每个部分都被允许：%1。</translation>
    </message>
    <message>
        <source>Read tools are allowed inside the workspace.</source>
        <translation>读取类工具在工作区内是允许的。</translation>
    </message>
    <message>
        <source>The rule is empty.</source>
        <translation>规则为空。</translation>
    </message>
    <message>
        <source>The rule has no tool name before &quot;(&quot;.</source>
        <translation>规则在 &quot;(&quot; 之前没有工具名。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a tool name: a tool name has only letters, digits, &quot;_&quot;, &quot;.&quot; and &quot;-&quot;.</source>
        <translation>&quot;%1&quot; 不是工具名：工具名只能包含字母、数字、&quot;_&quot;、&quot;.&quot; 和 &quot;-&quot;。</translation>
    </message>
    <message>
        <source>The rule does not end with &quot;)&quot;: its pattern must be closed.</source>
        <translation>规则没有以 &quot;)&quot; 结尾：其模式必须闭合。</translation>
    </message>
    <message>
        <source>The pattern in parentheses is empty: write %1 alone for every call of the tool.</source>
        <translation>括号中的模式为空：若要表示该工具的所有调用，只写 %1 即可。</translation>
    </message>
    <message>
        <source>Write a call the way rules are written: shell(git diff; rm -rf ~) or read_file(src/main.cpp).</source>
        <translation>请按规则的写法输入调用：shell(git diff; rm -rf ~) 或 read_file(src/main.cpp)。</translation>
    </message>
    <message>
        <source>There is no tool named &quot;%1&quot;.</source>
        <translation>没有名为 &quot;%1&quot; 的工具。</translation>
    </message>
    <message>
        <source>The call does not end with &quot;)&quot;.</source>
        <translation>该调用没有以 &quot;)&quot; 结尾。</translation>
    </message>
    <message>
        <source>%1 needs its command or path in parentheses.</source>
        <translation>%1 需要在括号中写出命令或路径。</translation>
    </message>
    <message>
        <source>The rule %1 does not parse, so it denies every call: %2</source>
        <translation>规则 %1 无法解析，因此会拒绝所有调用：%2</translation>
    </message>
    <message>
        <source>The rule %1 does not parse, so it denies every call of %2: %3</source>
        <translation>规则 %1 无法解析，因此会拒绝 %2 的所有调用：%3</translation>
    </message>
    <message>
        <source>Every call of %1 is denied by %2.</source>
        <translation>%1 的所有调用都被 %2 拒绝。</translation>
    </message>
    <message>
        <source>Every call of %1 is asked by %2.</source>
        <translation>%1 的所有调用都因 %2 需要询问。</translation>
    </message>
    <message>
        <source>Write tools and the shell ask before they run.</source>
        <translation>写入类工具和 shell 在运行前会先询问。</translation>
    </message>
    <message>
        <source>Fix or remove %1; it holds {&quot;allow&quot;: [...], &quot;ask&quot;: [...], &quot;deny&quot;: [...]}, each a list of rules such as &quot;shell(git status)&quot;.</source>
        <translation>请修正或删除 %1；它包含 {&quot;allow&quot;: [...], &quot;ask&quot;: [...], &quot;deny&quot;: [...]}，每一项都是一个规则列表，例如 &quot;shell(git status)&quot;。</translation>
    </message>
    <message>
        <source>The rules</source>
        <translation>这些规则</translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2 at byte %3.</source>
        <translation>%1 不是有效的 JSON：%2（位于第 %3 字节）。</translation>
    </message>
    <message>
        <source>%1 is not a JSON object.</source>
        <translation>%1 不是 JSON 对象。</translation>
    </message>
    <message>
        <source>In %1, &quot;%2&quot; is not a list of rules.</source>
        <translation>在 %1 中，&quot;%2&quot; 不是规则列表。</translation>
    </message>
    <message>
        <source>In %1, entry %2 of &quot;%3&quot; is not a string.</source>
        <translation>在 %1 中，&quot;%3&quot; 的第 %2 项不是字符串。</translation>
    </message>
    <message>
        <source>The rules file %1 cannot be read: %2</source>
        <translation>无法读取规则文件 %1：%2</translation>
    </message>
    <message>
        <source>The rules file %1 cannot be written: %2</source>
        <translation>无法写入规则文件 %1：%2</translation>
    </message>
    <message>
        <source>Check that %1 is writable.</source>
        <translation>请检查 %1 是否可写入。</translation>
    </message>
    <message>
        <source>its folder cannot be created</source>
        <translation>无法创建其所在的文件夹</translation>
    </message>
    <message>
        <source>%1 stands for every tool of an MCP server: it takes no pattern in parentheses.</source>
        <translation>%1 表示某个 MCP 服务器的所有工具：它不接受括号中的模式。</translation>
    </message>
    <message>
        <source>Tools of MCP servers ask before they run, unless the server marks them read-only and you trust the server.</source>
        <translation>MCP 服务器的工具在运行前会先询问，除非服务器把它标为只读并且你信任该服务器。</translation>
    </message>
    <message>
        <source>%1: %2 makes the program write a file or run another program, which %3 does not cover</source>
        <translation>%1：%2 会让程序写入文件或运行其他程序，%3 不涵盖这种情况</translation>
    </message>
    <message>
        <source>%1 is asked: with %2 the program writes a file or runs another program, which a rule with a wildcard such as %3 never covers (only a rule that spells the option out).</source>
        <translation>%1 需要询问：带有 %2 时，程序会写入文件或运行其他程序，而 %3 这类带通配符的规则从不涵盖这种情况（只有明确写出该选项的规则才可以）。</translation>
    </message>
</context>
<context>
    <name>ProtocolCheck</name>
    <message>
        <source>Tool %1 of the snapshot is not a function with a name.</source>
        <translation>快照中的第 %1 个工具不是带名称的函数。</translation>
    </message>
    <message>
        <source>The snapshot names the tool %1 twice.</source>
        <translation>快照中工具 %1 出现了两次。</translation>
    </message>
    <message>
        <source>The tool %1 has no parameters schema.</source>
        <translation>工具 %1 没有参数模式（parameters）。</translation>
    </message>
    <message>
        <source>No tools are offered: the model can only answer in text.</source>
        <translation>没有提供任何工具：模型只能用文字回答。</translation>
    </message>
    <message numerus="yes">
        <source>%n tool(s) frozen for this request and its calls: %1</source>
        <translation>
            <numerusform>本次请求及其调用冻结了 %n 个工具：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>pairing</source>
        <translation>配对</translation>
    </message>
    <message>
        <source>no orphan results</source>
        <translation>无孤立结果</translation>
    </message>
    <message>
        <source>roles in order</source>
        <translation>角色顺序</translation>
    </message>
    <message>
        <source>unique call ids</source>
        <translation>调用 id 唯一</translation>
    </message>
    <message>
        <source>tool snapshot</source>
        <translation>工具快照</translation>
    </message>
    <message>
        <source>Message %1 (assistant) calls %2, but no tool message after it answers that id.</source>
        <translation>第 %1 条消息（assistant）调用了 %2，但其后没有回答该 id 的 tool 消息。</translation>
    </message>
    <message>
        <source>Message %1 (tool) answers %2, but the message before it asked for no tool call.</source>
        <translation>第 %1 条消息（tool）回答了 %2，但它之前的消息并没有请求工具调用。</translation>
    </message>
    <message>
        <source>Message %1 (tool) answers %2, which message %3 did not call.</source>
        <translation>第 %1 条消息（tool）回答了 %2，而第 %3 条消息并没有调用它。</translation>
    </message>
    <message>
        <source>Message %1 (tool) answers %2 a second time.</source>
        <translation>第 %1 条消息（tool）第二次回答了 %2。</translation>
    </message>
    <message>
        <source>Message %1 is a tool message before any prompt.</source>
        <translation>第 %1 条消息是出现在任何提示词之前的 tool 消息。</translation>
    </message>
    <message>
        <source>Message %1 is a system message after the conversation began.</source>
        <translation>第 %1 条消息是对话开始之后的 system 消息。</translation>
    </message>
    <message>
        <source>Message %1 is an assistant message before any prompt.</source>
        <translation>第 %1 条消息是出现在任何提示词之前的 assistant 消息。</translation>
    </message>
    <message>
        <source>Message %1 (assistant) uses the call id %2 twice.</source>
        <translation>第 %1 条消息（assistant）两次使用了调用 id %2。</translation>
    </message>
    <message>
        <source>The last message (%1, %2) is neither a prompt nor a tool result: there is nothing for the model to answer.</source>
        <translation>最后一条消息（第 %1 条，%2）既不是提示词也不是工具结果：模型没有可回答的内容。</translation>
    </message>
    <message numerus="yes">
        <source>Each of the %n tool call(s) is answered by a tool message right after its message.</source>
        <translation>
            <numerusform>全部 %n 个工具调用都在其消息之后紧接着由 tool 消息回答。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Each of the %n tool message(s) answers a call of the message before it, once.</source>
        <translation>
            <numerusform>全部 %n 条 tool 消息都恰好回答一次其前面消息中的调用。</numerusform>
        </translation>
    </message>
    <message>
        <source>System first, then the conversation; every tool message follows the call it answers.</source>
        <translation>system 在最前，然后是对话；每条 tool 消息都跟在它回答的调用之后。</translation>
    </message>
    <message>
        <source>No assistant message repeats a tool call id.</source>
        <translation>没有 assistant 消息重复使用工具调用 id。</translation>
    </message>
</context>
<context>
    <name>ProviderPreset</name>
    <message>
        <source>Azure OpenAI</source>
        <translation>Azure OpenAI</translation>
    </message>
    <message>
        <source>DeepSeek</source>
        <translation>DeepSeek 深度求索</translation>
    </message>
    <message>
        <source>Alibaba Qwen (DashScope)</source>
        <translation>阿里云百炼 通义千问（DashScope）</translation>
    </message>
    <message>
        <source>Moonshot Kimi</source>
        <translation>月之暗面 Kimi</translation>
    </message>
    <message>
        <source>Zhipu GLM</source>
        <translation>智谱 GLM</translation>
    </message>
    <message>
        <source>SiliconFlow</source>
        <translation>硅基流动 SiliconFlow</translation>
    </message>
    <message>
        <source>Volcengine Ark (Doubao)</source>
        <translation>火山方舟（豆包）</translation>
    </message>
    <message>
        <source>Google Gemini</source>
        <translation>Google Gemini</translation>
    </message>
    <message>
        <source>llama.cpp server</source>
        <translation>llama.cpp 服务器</translation>
    </message>
    <message>
        <source>LiteLLM proxy</source>
        <translation>LiteLLM 代理</translation>
    </message>
    <message>
        <source>Azure uses the api-key header; check the deployment&apos;s key (Keys and Endpoint of the resource in the Azure portal).</source>
        <translation>Azure 使用 api-key 请求头；请检查该部署的密钥（Azure 门户中该资源的“密钥和终结点”）。</translation>
    </message>
    <message>
        <source>Azure answers 404 for a deployment name or api-version it does not know: the base URL must be https://&lt;resource&gt;.openai.azure.com/openai/deployments/&lt;deployment&gt;?api-version=&lt;date&gt;.</source>
        <translation>Azure 对不认识的部署名称或 api-version 返回 404：基础 URL 应为 https://&lt;resource&gt;.openai.azure.com/openai/deployments/&lt;deployment&gt;?api-version=&lt;日期&gt;。</translation>
    </message>
    <message>
        <source>%1 asks for a key: set the key the server was started with, or start it without one.</source>
        <translation>%1 要求提供密钥：请填写启动服务器时设定的密钥，或不带密钥启动它。</translation>
    </message>
    <message>
        <source>%1 did not accept the key: check it, or make a new one at %2.</source>
        <translation>%1 不接受这个密钥：请检查它，或在 %2 新建一个。</translation>
    </message>
    <message>
        <source>%1&apos;s base URL is %2; a model name this key cannot use also gives 404.</source>
        <translation>%1 的基础 URL 是 %2；此密钥无法使用的模型名称也会导致 404。</translation>
    </message>
</context>
<context>
    <name>RequestCheck</name>
    <message>
        <source>Line %1, column %2: %3</source>
        <translation>第 %1 行，第 %2 列：%3</translation>
    </message>
    <message>
        <source>The body must be a JSON object.</source>
        <translation>正文必须是 JSON 对象。</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>the body</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>messages: %1</source>
        <translation>messages：%1</translation>
    </message>
    <message>
        <source>Pairing rule: %1</source>
        <translation>配对规则：%1</translation>
    </message>
</context>
<context>
    <name>RetryPolicy</name>
    <message>
        <source>Retrying in %1 s (attempt %2 of %3).</source>
        <translation>%1 秒后重试（第 %2/%3 次尝试）。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Use the offline &amp;demo (no key, no network)</source>
        <translation>使用离线演示（无需密钥，不联网）(&amp;D)</translation>
    </message>
    <message>
        <source>Use the offline demo</source>
        <translation>使用离线演示</translation>
    </message>
    <message>
        <source>A built-in scripted model shows how the agent works: it asks to run a harmless command, waits for your approval and answers with the output. Untick it to use a real provider.</source>
        <translation>由内置的脚本化模型演示智能体如何工作：它会请求运行一条无害的命令，等待你批准，然后根据输出作答。取消勾选即可使用真实的供应商。</translation>
    </message>
    <message>
        <source>Provider</source>
        <translation>供应商</translation>
    </message>
    <message>
        <source>&amp;Base URL:</source>
        <translation>基础 URL(&amp;B)：</translation>
    </message>
    <message>
        <source>OPENAI_BASE_URL</source>
        <translation>OPENAI_BASE_URL</translation>
    </message>
    <message>
        <source>Base URL</source>
        <translation>基础 URL</translation>
    </message>
    <message>
        <source>The address of an OpenAI-compatible API, usually ending in /v1</source>
        <translation>OpenAI 兼容 API 的地址，通常以 /v1 结尾</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <source>OPENAI_API_KEY</source>
        <translation>OPENAI_API_KEY</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Show the API key</source>
        <translation>显示 API 密钥</translation>
    </message>
    <message>
        <source>Store the key in the settings file in &amp;plain text</source>
        <translation>以明文形式将密钥保存在设置文件中(&amp;P)</translation>
    </message>
    <message>
        <source>Store the key in the settings file in plain text</source>
        <translation>以明文形式将密钥保存在设置文件中</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>OPENAI_MODEL</source>
        <translation>OPENAI_MODEL</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>测试连接(&amp;T)</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Asks the provider for its list of models with the values entered above</source>
        <translation>使用上方填写的值向供应商请求模型列表</translation>
    </message>
    <message>
        <source>Testing the connection</source>
        <translation>正在测试连接</translation>
    </message>
    <message>
        <source>Connection test result</source>
        <translation>连接测试结果</translation>
    </message>
    <message>
        <source>Agent</source>
        <translation>智能体</translation>
    </message>
    <message>
        <source>&amp;Workspace folder:</source>
        <translation>工作区文件夹(&amp;W)：</translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation>工作区文件夹</translation>
    </message>
    <message>
        <source>The folder commands run in</source>
        <translation>命令运行所在的文件夹</translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation>浏览(&amp;R)…</translation>
    </message>
    <message>
        <source>Browse for the workspace folder</source>
        <translation>浏览并选择工作区文件夹</translation>
    </message>
    <message>
        <source>Max t&amp;urns:</source>
        <translation>最大轮次(&amp;U)：</translation>
    </message>
    <message>
        <source>How many requests the agent may send the model for one prompt</source>
        <translation>对于一条提示词，智能体最多可以向模型发送多少次请求</translation>
    </message>
    <message>
        <source>Max turns</source>
        <translation>最大轮次</translation>
    </message>
    <message>
        <source>Request time&amp;out:</source>
        <translation>请求超时(&amp;O)：</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>How long the provider may stay silent before a request is given up</source>
        <translation>供应商无响应多久后放弃该请求</translation>
    </message>
    <message>
        <source>Request timeout in seconds</source>
        <translation>请求超时（秒）</translation>
    </message>
    <message>
        <source>Retr&amp;ies:</source>
        <translation>重试次数(&amp;I)：</translation>
    </message>
    <message>
        <source>How many times a request is sent again after a rate limit, a server error or a refused connection; 0 never retries</source>
        <translation>遇到限流、服务器错误或连接被拒绝时，请求最多重发几次；0 表示从不重试</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试次数</translation>
    </message>
    <message>
        <source>&amp;Stream answers as they are generated</source>
        <translation>边生成边显示回答(&amp;S)</translation>
    </message>
    <message>
        <source>Stream answers as they are generated</source>
        <translation>边生成边显示回答</translation>
    </message>
    <message>
        <source>Some providers reject streaming: untick it if every request fails with an error about “stream”.</source>
        <translation>有些供应商不支持流式传输：如果每个请求都因与“stream”有关的错误而失败，请取消勾选此项。</translation>
    </message>
    <message>
        <source>Maximum answer si&amp;ze:</source>
        <translation>最大回答大小(&amp;Z)：</translation>
    </message>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>The most one answer may bring; a longer answer is given up</source>
        <translation>一个回答最多可以有多大；超过即放弃</translation>
    </message>
    <message>
        <source>Maximum answer size in megabytes</source>
        <translation>最大回答大小（MB）</translation>
    </message>
    <message>
        <source>Maximum &amp;answer time:</source>
        <translation>最大回答时间(&amp;A)：</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>How long one answer may take, however steadily it arrives, before it is given up</source>
        <translation>一个回答最多可以用多长时间（无论数据是否持续到达），超过即放弃</translation>
    </message>
    <message>
        <source>Maximum answer time in minutes</source>
        <translation>最大回答时间（分钟）</translation>
    </message>
    <message>
        <source>Pro&amp;file:</source>
        <translation>配置(&amp;F)：</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>The provider profile the fields below edit; the one selected on OK is used</source>
        <translation>下方字段编辑的供应商配置；按“确定”时选中的配置将被使用</translation>
    </message>
    <message>
        <source>&amp;New from preset…</source>
        <translation>从预设新建(&amp;N)…</translation>
    </message>
    <message>
        <source>New profile from a preset</source>
        <translation>从预设新建配置</translation>
    </message>
    <message>
        <source>Dup&amp;licate</source>
        <translation>创建副本(&amp;L)</translation>
    </message>
    <message>
        <source>Duplicate the profile</source>
        <translation>为此配置创建副本</translation>
    </message>
    <message>
        <source>R&amp;ename…</source>
        <translation>重命名(&amp;E)…</translation>
    </message>
    <message>
        <source>Rename the profile</source>
        <translation>重命名此配置</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>删除(&amp;V)</translation>
    </message>
    <message>
        <source>Remove the profile</source>
        <translation>删除此配置</translation>
    </message>
    <message>
        <source>&amp;Advanced</source>
        <translation>高级(&amp;A)</translation>
    </message>
    <message>
        <source>Advanced provider settings</source>
        <translation>高级供应商设置</translation>
    </message>
    <message>
        <source>Au&amp;thentication:</source>
        <translation>认证方式(&amp;T)：</translation>
    </message>
    <message>
        <source>Authentication</source>
        <translation>认证方式</translation>
    </message>
    <message>
        <source>Extra &amp;headers:</source>
        <translation>额外请求头(&amp;H)：</translation>
    </message>
    <message>
        <source>Name: value (one header per line)</source>
        <translation>名称: 值（每行一个请求头）</translation>
    </message>
    <message>
        <source>Extra headers</source>
        <translation>额外请求头</translation>
    </message>
    <message>
        <source>Ask for token usa&amp;ge in the stream (stream_options)</source>
        <translation>在流中请求 token 用量（stream_options）(&amp;G)</translation>
    </message>
    <message>
        <source>Ask for token usage in the stream</source>
        <translation>在流中请求 token 用量</translation>
    </message>
    <message>
        <source>Ma&amp;x tokens:</source>
        <translation>最大 token 数(&amp;X)：</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <source>Appl&amp;y suggested settings</source>
        <translation>应用建议的设置(&amp;Y)</translation>
    </message>
    <message>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <source>The most tokens the model may write in one answer; 0 leaves it to the provider</source>
        <translation>模型一次回答最多可写的 token 数；0 表示由供应商决定</translation>
    </message>
    <message>
        <source>Sent &amp;as:</source>
        <translation>发送为(&amp;A)：</translation>
    </message>
    <message>
        <source>The request field of the limit: OpenAI expects max_completion_tokens, most other providers max_tokens</source>
        <translation>上限所用的请求字段：OpenAI 要求 max_completion_tokens，大多数其他供应商要求 max_tokens</translation>
    </message>
    <message>
        <source>Max tokens field</source>
        <translation>最大 token 数字段</translation>
    </message>
</context>
<context>
    <name>ShellSyntax</name>
    <message>
        <source>The command uses shell syntax that is not split into simple commands (%1).</source>
        <translation>该命令使用了无法拆分为简单命令的 shell 语法（%1）。</translation>
    </message>
    <message>
        <source>The command nests too deeply to be split.</source>
        <translation>该命令嵌套过深，无法拆分。</translation>
    </message>
    <message>
        <source>The command has text the splitter could not place.</source>
        <translation>该命令中有拆分器无法归位的文本。</translation>
    </message>
    <message>
        <source>The command has a word the splitter could not delimit.</source>
        <translation>该命令中有拆分器无法确定边界的单词。</translation>
    </message>
    <message>
        <source>The command has a here-document.</source>
        <translation>该命令含有 here 文档（here-document）。</translation>
    </message>
    <message>
        <source>The command sets a shell variable that later commands see.</source>
        <translation>该命令设置了后续命令可见的 shell 变量。</translation>
    </message>
    <message>
        <source>The command has a backslash inside backquotes.</source>
        <translation>该命令在反引号内含有反斜杠。</translation>
    </message>
    <message>
        <source>The command has an arithmetic expansion, which can run commands through the variables it evaluates.</source>
        <translation>该命令含有算术展开，它可能通过所求值的变量运行命令。</translation>
    </message>
    <message>
        <source>The command has a parameter expansion with an operator or a subscript.</source>
        <translation>该命令含有带运算符或下标的参数展开。</translation>
    </message>
    <message>
        <source>A word ends with a lone backslash.</source>
        <translation>有单词以单独的反斜杠结尾。</translation>
    </message>
    <message>
        <source>The command has an expansion the splitter could not place.</source>
        <translation>该命令中有拆分器无法归位的展开。</translation>
    </message>
    <message>
        <source>The command has an unterminated quote.</source>
        <translation>该命令中有未闭合的引号。</translation>
    </message>
    <message>
        <source>The command has a $&apos;…&apos; escape the splitter does not decode.</source>
        <translation>该命令含有拆分器不解码的 $&apos;…&apos; 转义。</translation>
    </message>
    <message>
        <source>The command evaluates a PowerShell expression, such as a method call, which is not a simple command.</source>
        <translation>该命令对 PowerShell 表达式（例如方法调用）求值，这不是简单命令。</translation>
    </message>
    <message>
        <source>The command calls a program whose name is computed.</source>
        <translation>该命令调用的程序名是计算得出的。</translation>
    </message>
    <message>
        <source>The command uses PowerShell&apos;s stop-parsing token --%.</source>
        <translation>该命令使用了 PowerShell 的停止解析标记 --%。</translation>
    </message>
    <message>
        <source>The command has a PowerShell argument the splitter does not decode.</source>
        <translation>该命令含有拆分器不解码的 PowerShell 参数。</translation>
    </message>
    <message>
        <source>The command has a PowerShell string the splitter does not decode.</source>
        <translation>该命令含有拆分器不解码的 PowerShell 字符串。</translation>
    </message>
    <message>
        <source>The command has a cmd.exe block in parentheses.</source>
        <translation>该命令含有括号括起的 cmd.exe 代码块。</translation>
    </message>
    <message>
        <source>The command has a redirection without a command.</source>
        <translation>该命令含有没有命令的重定向。</translation>
    </message>
    <message>
        <source>The command uses a cmd.exe statement (%1).</source>
        <translation>该命令使用了 cmd.exe 语句（%1）。</translation>
    </message>
    <message>
        <source>The command is a cmd.exe command whose arguments cmd.exe splits itself.</source>
        <translation>该命令是一条由 cmd.exe 自行拆分参数的 cmd.exe 命令。</translation>
    </message>
    <message>
        <source>The program name has a character cmd.exe may read as a separator.</source>
        <translation>程序名中含有 cmd.exe 可能视为分隔符的字符。</translation>
    </message>
    <message>
        <source>The command has a \&quot; that cmd.exe and the program read differently.</source>
        <translation>该命令含有 \&quot;，cmd.exe 与程序对它的解读不同。</translation>
    </message>
    <message>
        <source>The command continues on another line.</source>
        <translation>该命令延续到了另一行。</translation>
    </message>
    <message>
        <source>The command has a redirection without a target.</source>
        <translation>该命令含有没有目标的重定向。</translation>
    </message>
    <message>
        <source>The shell grammar could not be loaded.</source>
        <translation>无法加载 shell 语法定义。</translation>
    </message>
    <message>
        <source>The command has a syntax error or a construct the splitter does not know.</source>
        <translation>该命令有语法错误，或含有拆分器不认识的结构。</translation>
    </message>
    <message>
        <source>The command has control characters.</source>
        <translation>该命令含有控制字符。</translation>
    </message>
    <message>
        <source>The command is too long to be split.</source>
        <translation>该命令太长，无法拆分。</translation>
    </message>
    <message>
        <source>The command has typographic quotes or dashes, which PowerShell reads as plain ones.</source>
        <translation>该命令含有印刷体引号或破折号，PowerShell 会把它们当作普通的引号或短横线。</translation>
    </message>
</context>
<context>
    <name>ShellTool</name>
    <message>
        <source>%1 command execution requires explicit approval.</source>
        <translation>%1 命令执行需要明确批准。</translation>
    </message>
</context>
<context>
    <name>SseParser</name>
    <message>
        <source>The provider sent a server-sent event longer than %1 bytes.</source>
        <translation>供应商发送的 SSE 事件超过了 %1 字节。</translation>
    </message>
    <message>
        <source>The endpoint is probably not streaming Chat Completions events; try again with streaming turned off.</source>
        <translation>该端点发送的可能不是流式 Chat Completions 事件；请关闭流式传输后重试。</translation>
    </message>
</context>
<context>
    <name>StreamAssembler</name>
    <message>
        <source>The provider reported an error in the stream: %1</source>
        <translation>供应商在流中报告了错误：%1</translation>
    </message>
    <message>
        <source>The request reached the provider but it could not answer it; read its message above.</source>
        <translation>请求已到达供应商，但供应商无法处理；请阅读上方它给出的信息。</translation>
    </message>
    <message>
        <source>not an object</source>
        <translation>不是对象</translation>
    </message>
    <message>
        <source>The provider sent a stream event that is not JSON (%1): %2</source>
        <translation>供应商发送的流事件不是 JSON（%1）：%2</translation>
    </message>
    <message>
        <source>The endpoint is probably not an OpenAI-compatible Chat Completions API, or it does not support streaming: try again with streaming turned off.</source>
        <translation>该端点可能不是 OpenAI 兼容的 Chat Completions API，或者不支持流式传输：请关闭流式传输后重试。</translation>
    </message>
    <message>
        <source>The stream ended before the model finished.</source>
        <translation>模型尚未完成，流就已结束。</translation>
    </message>
    <message>
        <source>The connection was cut while the model was answering; try again.</source>
        <translation>模型作答过程中连接被中断；请重试。</translation>
    </message>
    <message>
        <source>The provider&apos;s stream has no choices.</source>
        <translation>供应商的流中没有 choices。</translation>
    </message>
    <message>
        <source>The endpoint is probably not fully compatible with Chat Completions: try another provider or model, or turn streaming off.</source>
        <translation>该端点可能未完全兼容 Chat Completions：请换用其他供应商或模型，或关闭流式传输。</translation>
    </message>
</context>
<context>
    <name>Transcript</name>
    <message>
        <source>Cannot write the transcript %1: %2</source>
        <translation>无法写入记录文件 %1：%2</translation>
    </message>
    <message>
        <source>Choose a file in a folder you can write to.</source>
        <translation>请选择位于你有写入权限的文件夹中的文件。</translation>
    </message>
</context>
<context>
    <name>WorkspaceRules</name>
    <message>
        <source>Could not record the trusted rules in %1: %2</source>
        <translation>无法在 %1 中记录受信任的规则：%2</translation>
    </message>
    <message>
        <source>Check that the folder exists and can be written.</source>
        <translation>请检查该文件夹是否存在且可写入。</translation>
    </message>
    <message>
        <source>The rules file %1 is not read: %2</source>
        <translation>未读取规则文件 %1：%2</translation>
    </message>
    <message>
        <source>A workspace&apos;s rules file must be a regular file inside the workspace. Until it is, every tool call is denied.</source>
        <translation>工作区的规则文件必须是工作区内的普通文件。在此之前，所有工具调用都会被拒绝。</translation>
    </message>
    <message>
        <source>The rules file %1 is larger than 1 MB: it is not read.</source>
        <translation>规则文件 %1 大于 1 MB：未读取。</translation>
    </message>
    <message>
        <source>Until it is fixed, every tool call is denied.</source>
        <translation>在修复之前，所有工具调用都会被拒绝。</translation>
    </message>
    <message>
        <source>The rules file %1: %2</source>
        <translation>规则文件 %1：%2</translation>
    </message>
</context>
<context>
    <name>ZipArchive</name>
    <message>
        <source>The zip archive cannot be read: %1</source>
        <translation>无法读取该 zip 压缩包：%1</translation>
    </message>
    <message>
        <source>Too many files for one zip archive.</source>
        <translation>文件太多，无法放入一个 zip 压缩包。</translation>
    </message>
    <message>
        <source>The files are too large for one zip archive (4 GB).</source>
        <translation>文件太大，无法放入一个 zip 压缩包（4 GB）。</translation>
    </message>
    <message>
        <source>A file in a zip archive needs a name.</source>
        <translation>zip 压缩包中的文件需要有名称。</translation>
    </message>
    <message>
        <source>it is too short.</source>
        <translation>它太短了。</translation>
    </message>
    <message>
        <source>it has no end of central directory record.</source>
        <translation>它没有中央目录结束记录。</translation>
    </message>
    <message>
        <source>its central directory lies outside it.</source>
        <translation>它的中央目录位于文件之外。</translation>
    </message>
    <message>
        <source>its central directory is damaged.</source>
        <translation>它的中央目录已损坏。</translation>
    </message>
    <message>
        <source>an entry is encrypted.</source>
        <translation>其中一个条目已加密。</translation>
    </message>
    <message>
        <source>an entry is compressed.</source>
        <translation>其中一个条目经过压缩。</translation>
    </message>
    <message>
        <source>a local header is missing.</source>
        <translation>缺少一个本地文件头。</translation>
    </message>
    <message>
        <source>an entry is truncated.</source>
        <translation>其中一个条目被截断。</translation>
    </message>
    <message>
        <source>the CRC-32 of %1 does not match.</source>
        <translation>%1 的 CRC-32 校验值不匹配。</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Agent Loop: a desktop coding agent.</source>
        <translation>Agent Loop:桌面编程智能体。</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>A task to send as soon as the window is ready (it waits in the prompt box while the settings are incomplete).</source>
        <translation>窗口就绪后立即发送的任务(设置尚不完整时,它留在输入框中等待)。</translation>
    </message>
    <message>
        <source>[task]</source>
        <translation>[任务]</translation>
    </message>
</context>
</TS>
