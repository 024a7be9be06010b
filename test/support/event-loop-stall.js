/**
 * Reproduces a loaded machine inside one process: blocks the event loop for
 * EVENT_LOOP_STALL_MS out of every EVENT_LOOP_STALL_EVERY_MS (default 300 of
 * 1000), as a GC pause, a cold compile or a starved core would. Plain JS so
 * that it works both as a jest setup file and under `node --require`, e.g.
 * for the examples' child processes (--setupFiles takes a list: give the
 * test paths first):
 *
 *   EVENT_LOOP_STALL_MS=300 npx jest test/policy/streaming --setupFiles=./test/support/event-loop-stall.js
 *   NODE_OPTIONS="--require $PWD/test/support/event-loop-stall.js" npx jest test/examples
 *
 * Not part of any suite: a tool to show that a test depends on the event
 * loop never stalling (it fails with this) and that its fix does not.
 */
const stallMs = Number(process.env.EVENT_LOOP_STALL_MS ?? 300);
const everyMs = Number(process.env.EVENT_LOOP_STALL_EVERY_MS ?? 1_000);

const timer = setInterval(() => {
  const until = Date.now() + stallMs;
  while (Date.now() < until) {
    // busy: nothing else in this process runs meanwhile
  }
}, everyMs);
// A stall must never keep a process alive that would otherwise exit.
timer.unref();
