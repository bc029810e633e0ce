// Aggregates the benchmark samples (JSON lines, bench/README.md) into docs/benchmarks.md.
//   node report.mjs <samples.jsonl> <machine.json> <output.md>
// Rows whose samples are missing (e.g. agentloop-bench-gui not built yet) say "not measured".
import { readFileSync, writeFileSync } from 'node:fs';

const [samplesPath, machinePath, outputPath] = process.argv.slice(2);
const machine = JSON.parse(readFileSync(machinePath, 'utf8'));

const samples = [];
for (const line of readFileSync(samplesPath, 'utf8').split('\n')) {
  if (!line.trim().startsWith('{')) continue;
  try {
    const s = JSON.parse(line);
    if (typeof s.case === 'string' && typeof s.metric === 'string' && Number.isFinite(s.value))
      samples.push({ subject: 'agentloop', ...s });
  } catch {
    // not a sample: ignore
  }
}

const key = (c, metric, subject = 'agentloop') => `${c}\u0000${metric}\u0000${subject}`;
const groups = new Map();
for (const s of samples) {
  const k = key(s.case, s.metric, s.subject);
  if (!groups.has(k)) groups.set(k, { ...s, values: [] });
  groups.get(k).values.push(s.value);
}
const used = new Set();

function stats(c, metric, subject) {
  const k = key(c, metric, subject);
  const g = groups.get(k);
  if (!g) return null;
  used.add(k);
  const v = [...g.values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { median, min: v[0], max: v[v.length - 1], n: v.length, unit: g.unit };
}

const num = (x) => {
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
};
const fig = (s) =>
  s ? `${num(s.median)} ${s.unit} (${num(s.min)}–${num(s.max)}, n=${s.n})` : 'not measured';

// a, b: [case, metric, subject]. ratio(a, b) = median(a) / median(b), compared with target.
// Without b, or with floorOnly (b is shown as the floor the machine itself sets, no ratio), the
// target applies to a's median itself.
const rows = [
  {
    id: 'stream-sdk', what: '1. Stream, 64 MiB SSE: throughput vs openai SDK',
    a: ['1-stream', 'throughput', 'agentloop'], aName: 'Agent Loop ChatClient',
    b: ['1-stream', 'throughput', 'openai-sdk'], bName: 'openai SDK (Node)',
    ratioName: 'ours / SDK', op: '>=', target: 3,
  },
  {
    id: 'stream-curl', what: '1. Stream, 64 MiB SSE: raw transfer floor',
    a: ['1-stream', 'throughput', 'curl'], aName: 'curl -s -o /dev/null',
    b: ['1-stream', 'throughput', 'agentloop'], bName: 'Agent Loop ChatClient',
    ratioName: 'curl / ours', op: '<=', target: 2,
    swap: true,
  },
  {
    id: 'stream-qnam', what: '1. Stream, 64 MiB SSE: share of what QNetworkAccessManager delivers',
    a: ['1-stream', 'throughput', 'qnam-drain'], aName: 'QNAM alone (readAll() and discard)',
    b: ['1-stream', 'throughput', 'agentloop'], bName: 'Agent Loop ChatClient',
    ratioName: 'QNAM alone / ours',
    swap: true,
  },
  {
    id: 'stream-qnam-curl', what: '1. Stream, 64 MiB SSE: QNetworkAccessManager alone vs curl',
    a: ['1-stream', 'throughput', 'curl'], aName: 'curl -s -o /dev/null',
    b: ['1-stream', 'throughput', 'qnam-drain'], bName: 'QNAM alone (readAll() and discard)',
    ratioName: 'curl / QNAM alone',
    swap: true,
  },
  ...[100, 1000, 5000].map((n) => ({
    id: `request-${n}`, what: `2. Next request body, ${n} messages + 1 (20 MB of tool output)`,
    a: ['2-request', `build-${n}`, 'node'], aName: 'Node JSON.stringify',
    b: ['2-request', `build-${n}`, 'agentloop'], bName: 'AgentController::requestBody',
    ratioName: 'Node / ours', op: '>=', target: 10,
    swap: true,
  })),
  {
    id: 'request-growth', what: '2. Growth with history: 5 000 vs 100 messages (same 20 MB)',
    a: ['2-request', 'build-5000', 'agentloop'], aName: 'requestBody, 5 000',
    b: ['2-request', 'build-100', 'agentloop'], bName: 'requestBody, 100',
    ratioName: '5 000 / 100', op: '<=', target: 1.5,
  },
  {
    id: 'chat-append', what: '3. Chat view: append message 10 000 vs message 10',
    a: ['3-chat-append', 'append at 10 000'], aName: 'message 10 000',
    b: ['3-chat-append', 'append at 10'], bName: 'message 10',
    ratioName: '10 000 / 10', op: '<=', target: 1.2,
  },
  {
    id: 'chat-stall-max', what: '3. Chat view at 5 000 tokens/s: longest event-loop stall',
    a: ['3-stream-stalls', 'longest event-loop stall'], aName: 'Agent Loop', op: '<=', target: 8, unitTarget: 'ms',
  },
  {
    id: 'chat-stall-p99', what: '3. Chat view at 5 000 tokens/s: p99 event-loop stall',
    a: ['3-stream-stalls', 'p99 event-loop stall'], aName: 'Agent Loop', op: '<', target: 8, unitTarget: 'ms',
  },
  {
    id: 'output-memory', what: '4. Command printing 200 MB: peak memory over idle',
    a: ['4-command-output', 'peak RSS minus idle'], aName: 'Agent Loop', op: '<=', target: 50,
    unitTarget: 'MB',
  },
  {
    id: 'output-stall', what: '4. Command printing 200 MB: longest event-loop stall',
    a: ['4-command-output', 'longest event-loop stall'], aName: 'Agent Loop', op: '<=', target: 16, unitTarget: 'ms',
  },
  {
    id: 'output-file', what: '4. Command printing 200 MB: bytes in the spilled output file',
    a: ['4-command-output', 'spill file bytes'], aName: 'Agent Loop', op: '=', target: 200, unitTarget: 'MB',
  },
  {
    id: 'startup', what: '5. Start-up: first shown main window vs a bare Qt window',
    a: ['5-startup', 'time to first shown MainWindow'], aName: 'MainWindow',
    b: ['5-startup', 'time to first shown bare QMainWindow'], bName: 'bare QMainWindow',
    ratioName: 'ours / bare', op: '<=', target: 1.5,
  },
  {
    id: 'startup-memory', what: '5. Start-up: idle memory (RSS), reported',
    a: ['5-startup', 'idle RSS MainWindow'], aName: 'MainWindow',
    b: ['5-startup', 'idle RSS bare QMainWindow'], bName: 'bare QMainWindow',
    ratioName: 'ours / bare',
  },
  {
    id: 'tool', what: '6. Tool overhead: `echo hi` to finished',
    a: ['6-tool', 'echo', 'agentloop'], aName: 'ShellTool prepare + invoke',
    b: ['6-tool', 'echo', 'qprocess'], bName: 'QProcess /bin/sh -c',
    ratioName: 'ours / QProcess', op: '<=', target: 1.2,
  },
  {
    id: 'grep', what: '7. grep tool, 20 000 files / 200 MB: search vs GNU grep',
    a: ['7-grep', 'search', 'agentloop'], aName: 'grep tool',
    b: ['7-grep', 'search', 'gnu-grep'], bName: 'GNU grep -rnI',
    ratioName: 'ours / GNU grep', op: '<=', target: 2,
  },
  {
    id: 'grep-rg', what: '7. grep tool, 20 000 files / 200 MB: search vs ripgrep',
    a: ['7-grep', 'search', 'agentloop'], aName: 'grep tool',
    b: ['7-grep', 'search', 'ripgrep'], bName: 'rg -n',
    ratioName: 'ours / ripgrep',
  },
  {
    id: 'grep-stall', what: '7. grep tool running: longest event-loop stall of the calling thread',
    a: ['7-grep', 'longest event-loop stall'], aName: 'Agent Loop',
    b: ['7-grep', 'longest event-loop stall', 'idle-loop'], bName: 'idle loop, as long',
    floorOnly: true, op: '<=', target: 16, unitTarget: 'ms',
  },
  {
    id: 'read-file', what: '8. read_file of a 100 MB file, default arguments (first 2 000 lines)',
    a: ['8-read-file', 'first 2000 lines'], aName: 'read_file', op: '<', target: 50, unitTarget: 'ms',
  },
  {
    id: 'read-file-memory', what: '8. read_file of a 100 MB file: peak memory growth, reported',
    a: ['8-read-file', 'peak RSS growth'], aName: 'read_file',
  },
  {
    id: 'context-plan', what: '9. compaction of a 5 000-message history: plan and compacted request',
    a: ['9-context', 'plan+build-5000'], aName: 'planCompaction + compactedHistory',
    op: '<', target: 10, unitTarget: 'ms',
  },
  {
    id: 'context-accounting', what: '9. token accounting of one turn at 5 000 messages',
    a: ['9-context', 'accounting-5000'], aName: 'TokenLedger append + nextRequestTokens',
    op: '<', target: 1, unitTarget: 'ms',
  },
  {
    id: 'many-conversations', what: '10. Start-up with 1 000 conversations / 5 GB vs none',
    a: ['10-many-conversations', 'start with the conversations'], aName: '1 000 conversations',
    b: ['10-many-conversations', 'start with none'], bName: 'none',
    ratioName: 'many / none', op: '<=', target: 1.2,
  },
  {
    id: 'many-conversations-listed', what: '10. Start-up with 1 000 conversations: the list filled, reported',
    a: ['10-many-conversations', 'conversations listed'], aName: '1 000 conversations',
  },
  {
    id: 'many-conversations-first', what: '10. First start with them: every file read, index written, reported',
    a: ['10-many-conversations', 'first start, index built'], aName: '1 000 conversations',
  },
  {
    id: 'open-large-last-screen', what: '11. Opening a 100 MB conversation: its last screen shown',
    a: ['11-open-large-conversation', 'time to the last screen'], aName: 'Agent Loop',
    op: '<', target: 1000, unitTarget: 'ms',
  },
  {
    id: 'open-large-stall', what: '11. Opening a 100 MB conversation: longest stall while the rest arrives',
    a: ['11-open-large-conversation', 'longest stall while the rest arrives'], aName: 'Agent Loop',
    op: '<', target: 16, unitTarget: 'ms',
  },
  {
    id: 'open-large-all', what: '11. Opening a 100 MB conversation: every message in the chat, reported',
    a: ['11-open-large-conversation', 'time to every message'], aName: 'Agent Loop',
  },
  {
    id: 'timeline-stall', what: '12. Timeline of 1 000 turns shown, scrolled and zoomed: longest stall',
    a: ['12-timeline', 'longest event-loop stall'], aName: 'Agent Loop',
    op: '<=', target: 16, unitTarget: 'ms',
  },
  {
    id: 'timeline-stall-p99', what: '12. Timeline of 1 000 turns: p99 stall, reported',
    a: ['12-timeline', 'p99 event-loop stall'], aName: 'Agent Loop',
  },
  {
    id: 'timeline-paint', what: '12. Timeline of 1 000 turns: one paint of all of it (fit), reported',
    a: ['12-timeline', 'paint of every turn'], aName: 'Agent Loop',
  },
];

// Why a target is missed, from the profile of the run these notes were written with; printed
// only for rows that miss. Keep them short and dated.
let why = {};
try {
  why = JSON.parse(readFileSync(new URL('./why.json', import.meta.url), 'utf8'));
} catch {
  // no notes
}

const compare = (x, op, t) =>
  op === '>=' ? x >= t : op === '<=' ? x <= t : op === '<' ? x < t : op === '>' ? x > t
    : op === '=' ? x === t : null;
const opText = { '>=': '≥', '<=': '≤', '<': '<', '>': '>', '=': '=' };

const lines = [];
const missed = [];
const notMeasured = [];
lines.push('| Case | Measured | Peer / floor | Ratio | Target | Met? |');
lines.push('|---|---|---|---|---|---|');
for (const row of rows) {
  const a = stats(...row.a);
  const b = row.b ? stats(...row.b) : null;
  // The Measured column is always Agent Loop's side; swap when the ratio is peer / ours.
  const [ours, oursName, peer, peerName] =
    row.swap
      ? [b, row.bName, a, row.aName]
      : [a, row.aName, b, row.bName];
  let ratio = '';
  let value = null;
  if (row.b && !row.floorOnly) {
    if (a && b) {
      value = a.median / b.median;
      ratio = `${num(value)}× (${row.ratioName})`;
    } else {
      ratio = 'not measured';
    }
  } else if (a) {
    value = a.median;
  }
  const targetText =
    row.op === undefined
      ? 'reported'
      : row.b && !row.floorOnly
        ? `${opText[row.op]} ${row.target}×`
        : `${opText[row.op]} ${row.target} ${row.unitTarget}`;
  let met = '—';
  if (row.op !== undefined) {
    if (value === null) {
      met = 'not measured';
      notMeasured.push(row);
    } else if (compare(value, row.op, row.target)) {
      met = '**met**';
    } else {
      met = '**missed**';
      missed.push(row);
    }
  }
  const measured = `${oursName}: ${fig(ours)}`;
  const peerCell = row.b ? `${peerName}: ${fig(peer)}` : '—';
  lines.push(`| ${row.what} | ${measured} | ${peerCell} | ${ratio || '—'} | ${targetText} | ${met} |`);
}

const others = [...groups.entries()].filter(([k]) => !used.has(k));
const m = machine;
const out = [];
out.push('# Benchmarks');
out.push('');
out.push(
  `Generated by \`bench/run.sh\` on ${m.date} (Release build, loopback server on 127.0.0.1, ` +
    'every figure from the same run). Figures are the median with min–max and the number of ' +
    'samples; ratios are ratios of medians. MB = 10⁶ bytes. How to read and re-run: ' +
    '`bench/README.md`.',
);
out.push('');
out.push('## Results');
out.push('');
out.push(...lines);
out.push('');
const met = rows.filter((r) => r.op !== undefined).length - missed.length - notMeasured.length;
out.push(
  `Targets: ${met} met, ${missed.length} missed, ${notMeasured.length} not measured.`,
);
if (missed.length) {
  out.push('');
  out.push('## Why targets are missed');
  out.push('');
  for (const row of missed)
    out.push(`- ${row.what}: ${why[row.id] ?? 'not analysed yet.'}`);
}
if (notMeasured.length) {
  out.push('');
  out.push('## Not measured');
  out.push('');
  for (const row of notMeasured)
    out.push(`- ${row.what}: ${why[`${row.id}:not-measured`] ?? 'no samples in this run.'}`);
}
if (others.length) {
  out.push('');
  out.push('## Other figures');
  out.push('');
  out.push('| Case | Metric | Subject | Figure |');
  out.push('|---|---|---|---|');
  for (const [, g] of others)
    out.push(`| ${g.case} | ${g.metric} | ${g.subject} | ${fig(stats(g.case, g.metric, g.subject))} |`);
}
out.push('');
out.push('## Setup');
out.push('');
for (const note of m.setup ?? []) out.push(`- ${note}`);
out.push('');
out.push('## Machine');
out.push('');
out.push('| | |');
out.push('|---|---|');
for (const [name, value] of Object.entries(m.machine ?? {})) out.push(`| ${name} | ${value} |`);
out.push('');
writeFileSync(outputPath, out.join('\n'));
console.error(`report: ${samples.length} samples, ${met} met, ${missed.length} missed, ` +
  `${notMeasured.length} not measured -> ${outputPath}`);
