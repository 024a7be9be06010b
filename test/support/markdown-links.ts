/**
 * The relative links of a Markdown page, as the link checks read them
 * (test/examples/docs-links, package-contents): `[text](target)` and
 * `![alt](target)` outside fenced code, without those that name a scheme
 * (https:, mailto:); each as written, anchor included.
 */
export function relativeLinksOf(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((link) => !/^[a-z]+:/.test(link));
}
