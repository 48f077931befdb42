/**
 * Work to do however the bench ends: normally, on an error, or on SIGINT, SIGTERM or SIGHUP (on
 * which node would end without running 'exit' handlers). SIGKILL runs nothing: see firstFrame.
 */
const tasks = new Set<() => void>();

/** Last registered first, as finally blocks unwind: a pty's processes are killed before its folder is removed. */
const runAll = () => {
  for (const task of [...tasks].reverse()) {
    try {
      task();
    } catch {
      // the others still run
    }
  }
  tasks.clear();
};

process.on('exit', runAll);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.once(signal, () => {
    runAll();
    process.exit(code);
  });
}

/** Runs `task` when the bench ends, unless the returned function is called first (the work was done). */
export function atBenchExit(task: () => void): () => void {
  tasks.add(task);
  return () => void tasks.delete(task);
}
