/**
 * A small YAML reader for the OPA conformance case files: block mappings and sequences, literal
 * block scalars (`|`), quoted and plain scalars, and JSON-like flow collections. Not a general
 * YAML parser (no anchors, tags, folded multi-line plain scalars); the project has no YAML
 * dependency, and these files only use this subset.
 */
export type Yaml = null | boolean | number | string | Yaml[] | { [key: string]: Yaml };

interface Line {
  indent: number;
  text: string;
}

export function parseYamlDocuments(source: string): Yaml[] {
  const docs: string[][] = [[]];
  for (const raw of source.split(/\r?\n/)) {
    if (/^---\s*$/.test(raw)) docs.push([]);
    else docs[docs.length - 1]!.push(raw);
  }
  return docs.filter((d) => d.some((l) => isContent(l))).map((d) => new Reader(d).document());
}

function isContent(raw: string): boolean {
  const t = raw.trim();
  return t !== '' && !t.startsWith('#');
}

const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#{}[\],"'][^:]*?)\s*:(?:\s+|$)/;

class Reader {
  private pos = 0;
  private readonly lines: (Line | undefined)[];
  constructor(raw: string[]) {
    this.lines = raw.map((r) =>
      isContent(r) ? { indent: r.length - r.trimStart().length, text: r.trim() } : undefined,
    );
    this.raw = raw;
  }
  private readonly raw: string[];

  document(): Yaml {
    return this.node(0);
  }

  private peek(): Line | undefined {
    while (this.pos < this.lines.length && this.lines[this.pos] === undefined) this.pos++;
    return this.lines[this.pos];
  }

  private node(minIndent: number): Yaml {
    const line = this.peek();
    if (!line || line.indent < minIndent) return null;
    if (line.text === '-' || line.text.startsWith('- ')) return this.sequence(line.indent);
    if (KEY.test(line.text)) return this.mapping(line.indent);
    this.pos++;
    return scalar(line.text);
  }

  private sequence(indent: number): Yaml[] {
    const out: Yaml[] = [];
    for (
      let line = this.peek();
      line && line.indent === indent && (line.text === '-' || line.text.startsWith('- '));
      line = this.peek()
    ) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.pos++;
        out.push(this.node(indent + 1));
      } else if (/^[|>]/.test(rest)) {
        this.pos++;
        out.push(this.block(rest, indent));
      } else {
        // `- key: v` and `- - x`: the rest is a node indented past the dash.
        this.lines[this.pos] = { indent: indent + 2, text: rest };
        out.push(this.node(indent + 1));
      }
    }
    return out;
  }

  private mapping(indent: number): { [key: string]: Yaml } {
    const out: { [key: string]: Yaml } = {};
    for (let line = this.peek(); line && line.indent === indent; line = this.peek()) {
      const m = KEY.exec(line.text);
      if (!m) break;
      this.pos++;
      const key = String(scalar(m[1]!));
      const rest = stripComment(line.text.slice(m[0].length));
      if (rest === '') {
        const next = this.peek();
        const nestedSeq = next && next.indent === indent && (next.text === '-' || next.text.startsWith('- '));
        out[key] = nestedSeq ? this.sequence(indent) : this.node(indent + 1);
      } else if (/^[|>][-+]?$/.test(rest)) {
        out[key] = this.block(rest, indent);
      } else {
        out[key] = scalar(rest);
      }
    }
    return out;
  }

  /** A literal block scalar: the lines indented past `parent`, with their common indent removed. */
  private block(header: string, parent: number): string {
    const lines: string[] = [];
    let indent = -1;
    while (this.pos < this.raw.length) {
      const r = this.raw[this.pos]!;
      const ind = r.length - r.trimStart().length;
      if (r.trim() !== '' && ind <= parent) break;
      if (r.trim() !== '' && indent < 0) indent = ind;
      lines.push(r);
      this.pos++;
    }
    const body = lines.map((l) => l.slice(Math.max(indent, 0)));
    while (body.length > 0 && body[body.length - 1]!.trim() === '') body.pop();
    const folded = header.startsWith('>') ? body.join(' ') : body.join('\n');
    if (header.endsWith('-')) return folded;
    return `${folded}\n`;
  }
}

function stripComment(s: string): string {
  if (s.startsWith('"') || s.startsWith("'") || s.startsWith('{') || s.startsWith('[')) return s.trim();
  const i = s.search(/\s#/);
  return (i < 0 ? s : s.slice(0, i)).trim();
}

function scalar(text: string): Yaml {
  const t = stripComment(text);
  if (t.startsWith('{') || t.startsWith('[')) return new Flow(t).value();
  if (t.startsWith('"')) return doubleQuoted(t);
  if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  return plain(t);
}

/** YAML double-quoted strings are JSON strings plus `\xXX`, `\UXXXXXXXX` and a few escapes. */
function doubleQuoted(t: string): string {
  const json = t.replace(/\\(x[0-9a-fA-F]{2}|U[0-9a-fA-F]{8}|.)/g, (m, e: string) => {
    if (e[0] === 'x') return `\\u00${e.slice(1)}`;
    if (e[0] === 'U')
      return JSON.stringify(String.fromCodePoint(Number.parseInt(e.slice(1), 16))).slice(1, -1);
    if (e === '0') return '\\u0000';
    return m;
  });
  return JSON.parse(json) as string;
}

function plain(t: string): Yaml {
  if (t === '' || t === '~' || t === 'null') return null;
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(t)) return Number(t);
  return t;
}

class Flow {
  private i = 0;
  constructor(private readonly s: string) {}

  value(): Yaml {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') {
      this.i++;
      const out: { [key: string]: Yaml } = {};
      for (this.ws(); this.s[this.i] !== '}'; this.ws()) {
        const key = String(this.value());
        this.ws();
        if (this.s[this.i] === ':') this.i++;
        out[key] = this.value();
        this.ws();
        if (this.s[this.i] === ',') this.i++;
      }
      this.i++;
      return out;
    }
    if (c === '[') {
      this.i++;
      const out: Yaml[] = [];
      for (this.ws(); this.s[this.i] !== ']'; this.ws()) {
        out.push(this.value());
        this.ws();
        if (this.s[this.i] === ',') this.i++;
      }
      this.i++;
      return out;
    }
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(this.s.slice(this.i))!;
      this.i += m[0].length;
      return doubleQuoted(m[0]);
    }
    if (c === "'") {
      const m = /^'(?:[^']|'')*'/.exec(this.s.slice(this.i))!;
      this.i += m[0].length;
      return m[0].slice(1, -1).replace(/''/g, "'");
    }
    const m = /^[^,\]}:]*(?::(?!\s)[^,\]}:]*)*/.exec(this.s.slice(this.i))!;
    this.i += m[0].length;
    return plain(m[0].trim());
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
}
