/**
 * XML 1.0 text. Char excludes the C0 controls but tab, line feed and carriage return,
 * U+FFFE, U+FFFF and lone surrogates; such characters cannot appear even escaped.
 */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- the C0 controls XML 1.0 forbids are exactly what this matches
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text with every character XML 1.0 cannot carry replaced by `replacement` (removed by default). */
export function xmlChars(text: string, replacement = ''): string {
  return text.replace(NOT_XML, replacement);
}
