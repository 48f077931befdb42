// Loaded with `node --import` into the program under test: writes to $ACODE_BENCH_CPU_FILE the
// process's CPU time (user + system, ms) when it exits, and appends it to that file + '.marks'
// each time the process gets SIGUSR2 (the bench marks the span its steps ran in).
import { appendFileSync, writeFileSync } from 'node:fs';

const file = process.env.ACODE_BENCH_CPU_FILE;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return ((user + system) / 1000).toFixed(1);
};
if (file) {
  process.on('exit', () => writeFileSync(file, cpuMs()));
  process.on('SIGUSR2', () => appendFileSync(`${file}.marks`, `${cpuMs()}\n`));
}
