/**
 * The scripts' command lines: node:util parseArgs, with `--help` and a
 * mistyped option answered by a usage text instead of a stack trace.
 *
 * Why. Each script parsed its options with parseArgs alone, so `--help`
 * threw ERR_PARSE_ARGS_UNKNOWN_OPTION with a stack trace (test:stress,
 * soak), or was read as a file name (twin.ts). The usage lists the options
 * from the same config the parser reads, each with its default, so it
 * cannot drift from what the script accepts; a script that explains each
 * option in its own text passes that instead.
 */
import { parseArgs, ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** `script`'s usage: every option of `options`, with its default. */
export function usageOf(script: string, options: Options): string {
  const lines = Object.entries(options).map(([name, option]) => {
    const value = option.type === 'string' ? ' VALUE' : '';
    const fallback = option.default === undefined || option.default === false ? '' : `  (default ${JSON.stringify(option.default)})`;
    return `  --${name}${value}${option.multiple ? ' (repeatable)' : ''}${fallback}`;
  });
  return [`usage: ${script} [options]`, '', ...lines, '  --help'].join('\n');
}

/**
 * parseArgs(config) over this process's arguments; `--help` (or `-h`,
 * before any `--`) prints the usage (`usage`, or `usageOf` the config) and
 * exits 0, and an argument the config does not take prints its one-line
 * reason and the usage and exits 2.
 */
export function parseCommandLine<T extends ParseArgsConfig>(script: string, config: T, usage?: string): ReturnType<typeof parseArgs<T>> {
  const args = config.args ?? process.argv.slice(2);
  const beforeDashes = args.indexOf('--') < 0 ? args : args.slice(0, args.indexOf('--'));
  const text = usage ?? usageOf(script, config.options ?? {});
  if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
    console.log(text);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (error) {
    console.error(`${script.replace(/ --$/, '')}: ${(error as Error).message.split('. ')[0]}\n\n${text}`);
    process.exit(2);
  }
}
