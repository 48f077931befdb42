// Loaded with `node --import` into the program under test: writes to $ACODE_BENCH_FRAME_FILE the
// ms from the process's start (performance.now()) until it first writes $ACODE_BENCH_FRAME_MARKER.
import { writeFileSync } from 'node:fs';

const file = process.env.ACODE_BENCH_FRAME_FILE;
const marker = process.env.ACODE_BENCH_FRAME_MARKER ?? '❯';
if (file) {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  let seen = false;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!seen && String(chunk).includes(marker)) {
      seen = true;
      writeFileSync(file, performance.now().toFixed(1));
    }
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
}
