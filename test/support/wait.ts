/**
 * Waiting on events instead of for fixed times: on a loaded machine a fixed
 * sleep is sometimes too short, and on a quiet one always too long.
 */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every `everyMs` until it holds; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean, timeoutMs = 5_000, everyMs = 10): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await sleep(everyMs);
  }
}
