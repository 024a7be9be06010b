/**
 * Configs the docs print, read from the pages themselves, so the tests judge
 * the config a user copies and the pages cannot drift from what was tested:
 * docs/choosing.md's way back to the defaults before 2026-12-05,
 * docs/tuning.md's spelled-out defaults, and docs/configuration.md's
 * textbook algorithm.
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

/**
 * The JSON block docs/tuning.md's "## Defaults" section says `peak_ewma_experimental: {}` is
 * the same as (the `peak_ewma_experimental` object inside it).
 */
export function spelledOutDefaults(): Record<string, unknown> {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'tuning.md'), 'utf8');
  const match = /\n## Defaults\n[\s\S]*?is therefore the same as\s*```json\n([\s\S]*?)```/.exec(page);
  if (match === null) {
    throw new Error('docs/tuning.md: no "## Defaults" section with a ```json block after "is therefore the same as"');
  }
  return (JSON.parse(match[1]) as { peak_ewma_experimental: Record<string, unknown> }).peak_ewma_experimental;
}

/** The JSON object in backticks after docs/configuration.md's "The textbook algorithm (Envoy/tower/Finagle) is". */
export function textbookConfig(): Record<string, unknown> {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
  const match = /The textbook algorithm \(Envoy\/tower\/Finagle\) is `(\{[^`]*\})`/.exec(page);
  if (match === null) {
    throw new Error('docs/configuration.md: no "The textbook algorithm (Envoy/tower/Finagle) is `{…}`" sentence');
  }
  return JSON.parse(match[1]) as Record<string, unknown>;
}
