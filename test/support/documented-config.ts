/**
 * The config docs/choosing.md prints for getting the defaults before
 * 2026-12-05 back, read from the page itself, so the tests judge the config
 * a user copies and the page cannot drift from what was tested.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The JSON object in backticks that follows the page's "**The defaults before 2026-12-05" heading. */
export function previousDefaults(): Record<string, unknown> {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'choosing.md'), 'utf8');
  const match = /\*\*The defaults before 2026-12-05[^*]*\*\*[^`]*`(\{[^`]*\})`/.exec(page);
  if (match === null) {
    throw new Error('docs/choosing.md: no "**The defaults before 2026-12-05…**" paragraph with a `{…}` config after it');
  }
  return JSON.parse(match[1]) as Record<string, unknown>;
}
