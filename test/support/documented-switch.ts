/**
 * The config switch docs/choosing.md recommends to services with many
 * callers, read from the page itself, so the tests judge the switch a user
 * copies and the page cannot drift from what was tested.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The JSON object in backticks that follows the page's "**Many callers" heading. */
export function manyCallersSwitch(): Record<string, unknown> {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'choosing.md'), 'utf8');
  const match = /\*\*Many callers[^*]*\*\*[^`]*`(\{[^`]*\})`/.exec(page);
  if (match === null) {
    throw new Error('docs/choosing.md: no "**Many callers…**" paragraph with a `{…}` config after it');
  }
  return JSON.parse(match[1]) as Record<string, unknown>;
}
