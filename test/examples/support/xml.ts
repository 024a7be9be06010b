/**
 * A strict-enough XML well-formedness check for generated SVG (no XML parser
 * is installed): one root element, every tag closed in order, attributes
 * quoted and unique, text and attribute values free of raw `<` and of `&`
 * that does not start an entity.
 */
const NAME = '[A-Za-z_][\\w.:-]*';
const ENTITY = /&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);/g;
const TAG = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*"[^"<]*")*)\\s*(/?)>$`);

function checkText(text: string, where: string): void {
  if (text.replace(ENTITY, '').includes('&')) {
    throw new Error(`unescaped & in ${where}: ${text.slice(0, 80)}`);
  }
}

export function assertWellFormedXml(xml: string): void {
  const stack: string[] = [];
  let roots = 0;
  let position = 0;
  const body = xml.replace(/^<\?xml[^>]*\?>/, '').trim();
  while (position < body.length) {
    const open = body.indexOf('<', position);
    const text = body.slice(position, open === -1 ? body.length : open);
    if (text.trim() !== '') {
      if (stack.length === 0) throw new Error(`text outside the root element: ${text.slice(0, 80)}`);
      checkText(text, 'text');
    }
    if (open === -1) break;
    const close = body.indexOf('>', open);
    if (close === -1) throw new Error(`unterminated tag at ${open}`);
    const tag = body.slice(open, close + 1);
    const match = TAG.exec(tag);
    if (!match) throw new Error(`malformed tag: ${tag.slice(0, 120)}`);
    const [, closing, name, attributes, selfClosing] = match;
    const names = [...attributes.matchAll(new RegExp(`(${NAME})\\s*=\\s*"([^"]*)"`, 'g'))];
    const seen = new Set<string>();
    for (const [, attribute, value] of names) {
      if (seen.has(attribute)) throw new Error(`duplicate attribute ${attribute} in <${name}>`);
      seen.add(attribute);
      checkText(value, `attribute ${attribute} of <${name}>`);
    }
    if (closing) {
      const expected = stack.pop();
      if (expected !== name) throw new Error(`</${name}> closes <${expected}>`);
    } else {
      if (stack.length === 0) roots++;
      if (!selfClosing) stack.push(name);
    }
    position = close + 1;
  }
  if (stack.length > 0) throw new Error(`unclosed elements: ${stack.join(' > ')}`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
}
