// Loaded with `node --import` into the program under test: writes to $ACODE_BENCH_CPU_FILE the
// process's CPU time (user + system, ms) when it exits.
import { writeFileSync } from 'node:fs';

const file = process.env.ACODE_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(file, ((user + system) / 1000).toFixed(1));
  });
}
