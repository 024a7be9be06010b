/**
 * The users' guide pages link only to files that exist and to headings that
 * exist (GitHub's anchor rules), so a renamed file or section shows up here.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '..', '..');
const PAGES = [
  'docs/getting-started.md',
  'docs/kubernetes.md',
  'docs/choosing.md',
  'docs/observability.md',
  'docs/tuning.md',
  'examples/README.md',
];

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1])));
}

function linksOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((link) => !/^[a-z]+:/.test(link));
}

describe('users\' guide links', () => {
  it('the slug rule matches GitHub on a heading with code, arrows and dots', () => {
    expect(slug('3. Field mapping: `PeakEwma` → `peak_ewma_experimental`')).toBe('3-field-mapping-peakewma--peak_ewma_experimental');
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const file = path.join(ROOT, page);
    const broken: string[] = [];
    const links = linksOf(file);
    expect(links.length).toBeGreaterThan(2);
    for (const link of links) {
      const [target, anchor] = link.split('#');
      const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
      if (!fs.existsSync(resolved)) {
        broken.push(`${link} (no such file)`);
      } else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) {
        broken.push(`${link} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
