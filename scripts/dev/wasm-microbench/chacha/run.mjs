import fs from 'fs';
const { instance } = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]), {});
const f = instance.exports.rb_run;
for (const v of [0, 1, 2, 3, 4]) {
  const chk = f(v); for (let i = 0; i < 5; i++) f(v);
  const ts = [];
  for (let i = 0; i < 31; i++) { const t0 = process.cpuUsage(); f(v); const c = process.cpuUsage(t0); ts.push((c.user + c.system) / 1000); }
  ts.sort((a, b) => a - b);
  console.log(`wasm v${v}: min ${ts[0].toFixed(3)} med ${ts[15].toFixed(3)} ms chk ${chk}`);
}
