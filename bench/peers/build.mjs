// Case 2 peer: JSON.stringify({model, messages, tools}) of the same messages agentloop-bench
// sent (it writes its request bodies to <dir>/request-<count>.json). One JSON line per run.
//   node build.mjs <dir> <runs>
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, runsText] = process.argv.slice(2);
const runs = Number(runsText);

for (const count of [100, 1000, 5000]) {
  const { model, messages, tools } = JSON.parse(readFileSync(join(dir, `request-${count}.json`)));
  let length = JSON.stringify({ model, messages, tools }).length; // warm-up
  for (let run = 0; run < runs; ++run) {
    const start = performance.now();
    length = JSON.stringify({ model, messages, tools }).length;
    const ms = performance.now() - start;
    console.log(
      JSON.stringify({
        case: '2-request',
        metric: `build-${count}`,
        unit: 'ms',
        value: ms,
        higherIsBetter: false,
        subject: 'node',
      }),
    );
  }
  console.error(`node ${messages.length} messages: ${length} characters`);
}
