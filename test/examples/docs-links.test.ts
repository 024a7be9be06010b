/**
 * Every page of the docs, the README and the examples link only to files
 * that exist and to headings that exist (GitHub's anchor rules), so a renamed
 * file or section shows up here.
 */
import * as fs from 'fs';
import * as path from 'path';
import { relativeLinksOf } from '../support/markdown-links';

const ROOT = path.resolve(__dirname, '..', '..');
/** Every page of the docs, the README and the examples' pages (the API reference is generated). */
function markdownPages(): string[] {
  const pages = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory() && relative !== path.join('docs', 'api') && entry.name !== 'node_modules') walk(relative);
      else if (entry.isFile() && entry.name.endsWith('.md')) pages.push(relative);
    }
  };
  walk('docs');
  walk('examples');
  return pages.sort();
}
const PAGES = markdownPages();

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
  return relativeLinksOf(fs.readFileSync(file, 'utf8'));
}

describe('users\' guide links', () => {
  it('the slug rule matches GitHub on a heading with code, arrows and dots', () => {
    expect(slug('3. Field mapping: `PeakEwma` → `peak_ewma_experimental`')).toBe('3-field-mapping-peakewma--peak_ewma_experimental');
  });

  it('reads the guide pages, the logs and the examples', () => {
    for (const page of ['README.md', 'docs/getting-started.md', 'docs/tuning-log.md', 'docs/simulation-history.md', 'examples/README.md']) {
      expect(PAGES).toContain(page);
    }
    // The link reader finds the links (a page may have none, the guide pages have many).
    expect(linksOf(path.join(ROOT, 'docs/getting-started.md')).length).toBeGreaterThan(2);
    expect(PAGES.reduce((sum, page) => sum + linksOf(path.join(ROOT, page)).length, 0)).toBeGreaterThan(200);
  });

  it.each(PAGES)('%s: every relative link and anchor resolves', (page) => {
    const file = path.join(ROOT, page);
    const broken: string[] = [];
    const links = linksOf(file);
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
