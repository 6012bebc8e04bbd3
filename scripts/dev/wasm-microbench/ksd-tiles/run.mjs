import fs from 'fs';
const file = process.argv[2]; const reps = +(process.argv[3] ?? 15);
const variants = (process.argv[4] ?? '0,1,2,3,4,5,6,10,11,12,13,14').split(',').map(Number);
const { instance } = await WebAssembly.instantiate(fs.readFileSync(file), {});
const f = instance.exports.kb_run;
for (const v of variants) {
  const chk = f(v, 1);
  for (let i = 0; i < 5; i++) f(v, 0);
  const ts = [];
  for (let i = 0; i < reps; i++) { const t0 = process.cpuUsage(); f(v, 0); const c = process.cpuUsage(t0); ts.push((c.user + c.system) / 1000); }
  ts.sort((a, b) => a - b);
  const b = Buffer.alloc(8); b.writeDoubleBE(chk);
  console.log(`wasm v${v}: min ${ts[0].toFixed(3)} med ${ts[reps >> 1].toFixed(3)} ms chk ${b.toString('hex')}`);
}
