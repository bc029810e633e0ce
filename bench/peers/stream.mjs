// Case 1 peer: the official openai SDK's stream iteration, accumulating the text and the tool
// calls' arguments as a client has to. Prints one JSON line per run (bench/README.md).
//   node stream.mjs <baseURL> <runs> <bytes>
import OpenAI from 'openai';

const [baseURL, runsText, bytesText] = process.argv.slice(2);
const runs = Number(runsText);
const bytes = Number(bytesText);
const client = new OpenAI({ baseURL, apiKey: 'bench', maxRetries: 0, timeout: 600_000 });

for (let run = 0; run < runs; ++run) {
  const start = performance.now();
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = '';
  const calls = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) content += delta.content;
    for (const call of delta.tool_calls ?? []) {
      const entry = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) entry.id = call.id;
      if (call.function?.name) entry.name += call.function.name;
      if (call.function?.arguments) entry.arguments += call.function.arguments;
    }
  }
  const seconds = (performance.now() - start) / 1000;
  const argumentsChars = calls.reduce((sum, call) => sum + call.arguments.length, 0);
  console.error(
    `sdk run ${run + 1}: ${seconds.toFixed(3)} s, content ${content.length} chars, ` +
      `${calls.length} tool calls, arguments ${argumentsChars} chars`,
  );
  console.log(
    JSON.stringify({
      case: '1-stream',
      metric: 'throughput',
      unit: 'MB/s',
      value: bytes / 1e6 / seconds,
      higherIsBetter: true,
      subject: 'openai-sdk',
    }),
  );
}
