// ONNX Runtime's time per node on one shared model, to set beside tunefarm's per-kernel times
// (build/bench/models/call_context_bench ARTIFACT --top K) when looking for where a model loses.
// Usage: NODE_PATH=.peers/ort_peer/node_modules node bench/models/ort_node_profile.js MODEL THREADS [RUNS] [TOP]
//   MODEL: a name from ../shared/models/MANIFEST.json (resnet18, mobilenet_v2, ...).
// Prints per node: mean µs per run, share, op and ORT's fused node name, largest first; then the
// sum. Same session options as ../shared/peers/ort_bench.js (optimization 'all', sequential).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const ort = require('onnxruntime-node');

(async () => {
  const [model, threads = '1', runs = '200', top = '40'] = process.argv.slice(2);
  if (!model) throw new Error('usage: ort_node_profile.js MODEL THREADS [RUNS] [TOP]');
  const shared = path.join(__dirname, '..', '..', '..', 'shared', 'models');
  const entry = JSON.parse(fs.readFileSync(path.join(shared, 'MANIFEST.json'))).models[model];
  if (!entry) throw new Error(`no model '${model}' in MANIFEST.json`);
  const prefix = path.join(os.tmpdir(), `ort_profile_${process.pid}`);
  const sess = await ort.InferenceSession.create(path.join(shared, `${model}.onnx`), {
    graphOptimizationLevel: 'all', executionMode: 'sequential', intraOpNumThreads: +threads, interOpNumThreads: 1,
    enableProfiling: true, profileFilePrefix: prefix,
  });
  const bytes = fs.readFileSync(path.join(shared, entry.input_file));
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const shape = sess.inputMetadata ? sess.inputMetadata[0].shape : entry.input_shape;
  const feeds = { [entry.input_name]: new ort.Tensor('float32', data, shape) };
  for (let i = 0; i < 20; i++) await sess.run(feeds);  // warm-up runs, profiled too: dropped below
  for (let i = 0; i < +runs; i++) await sess.run(feeds);
  sess.endProfiling();
  await sess.release();
  const file = fs.readdirSync(os.tmpdir()).map((f) => path.join(os.tmpdir(), f)).find((f) => f.startsWith(prefix));
  const events = JSON.parse(fs.readFileSync(file));
  fs.unlinkSync(file);
  const kernels = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
  const perRun = kernels.length / (20 + +runs);
  const timed = kernels.slice(Math.round(20 * perRun));
  const byNode = new Map();
  for (const e of timed) {
    const name = e.name.replace(/_kernel_time$/, '');
    const n = byNode.get(name) || { op: e.args.op_name, us: 0 };
    n.us += e.dur;
    byNode.set(name, n);
  }
  const rows = [...byNode.entries()].map(([name, n]) => ({ name, op: n.op, us: n.us / +runs }));
  rows.sort((a, b) => b.us - a.us);
  const total = rows.reduce((s, r) => s + r.us, 0);
  console.log(`${model}, ${threads} thread(s), ${runs} runs: ${rows.length} nodes, ${total.toFixed(1)} µs per run in kernels`);
  for (const r of rows.slice(0, +top))
    console.log(`${r.us.toFixed(1).padStart(9)} µs ${(100 * r.us / total).toFixed(1).padStart(5)}%  ${r.op.padEnd(22)} ${r.name}`);
})().catch((e) => { console.error(`ort_node_profile: ${e.message}`); process.exit(1); });
