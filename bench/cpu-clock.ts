// Loaded with `node --import` into the program under test: writes to $ACODE_BENCH_CPU_FILE the
// process's CPU time (user + system, ms) when it exits, and appends to that file + '.marks' the
// process's CPU time and its main thread's each time it gets SIGUSR2 (the bench marks the span its
// steps ran in). The main thread's is what the program's own code costs; the rest is V8's helper
// threads (compiling hot functions, collecting garbage) and libuv's.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';

const file = process.env.ACODE_BENCH_CPU_FILE;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return ((user + system) / 1000).toFixed(1);
};
/** The main thread's time on a CPU, ns in /proc/thread-self/schedstat (Linux), as ms; -1 where there is none. */
const mainThreadMs = () => {
  try {
    return (Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6).toFixed(1);
  } catch {
    return '-1';
  }
};
if (file) {
  process.on('exit', () => writeFileSync(file, cpuMs()));
  process.on('SIGUSR2', () => appendFileSync(`${file}.marks`, `${cpuMs()} ${mainThreadMs()}\n`));
}
