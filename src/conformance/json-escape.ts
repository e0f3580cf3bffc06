/**
 * JSON string escaping of long texts, in WebAssembly with 128-bit SIMD. The inputs hash of every
 * document judged from text is the SHA-256 of canonical JSON holding that whole text, so every
 * character of a document is escaped once per judgement; done a code unit at a time in JS it cost
 * more than JSON.parse of the same text (issue 15's conformance benchmark). Here 16 bytes are
 * tested per step and copied as they are unless one needs escaping.
 *
 * The bytes are the same as JSON.stringify writes for well-formed text (a property test holds them
 * to it). Text with a lone surrogate, which UTF-8 cannot carry, is left to the caller (null), as
 * is text longer than MAX_CHARS (the module's memory only grows, so it stays bounded) and every
 * text when this runtime has no WebAssembly SIMD. Pure: no I/O, no imports.
 *
 * The module, assembled from this source with wabt's wat2wasm (--enable-simd); `escape` reads
 * `n` UTF-8 bytes at `i`, writes them escaped at `o` (up to 6 bytes each, and 16 bytes of slack
 * past the end for its whole-vector stores) and returns the offset after the last byte written:
 *
 * (module
 *   (memory (export "memory") 1)
 *   ;; 0..127: the letter after the backslash for a byte that needs escaping, 1 for \u00XX, 0 for none
 *   ;; 128..143: lowercase hex digits
 *   (data (i32.const 0) "\01\01\01\01\01\01\01\01btn\01fr\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\01\00\00\22")
 *   (data (i32.const 92) "\5c")
 *   (data (i32.const 128) "0123456789abcdef")
 *   (func (export "escape") (param $i i32) (param $n i32) (param $o i32) (result i32)
 *     (local $end i32) (local $v v128) (local $m i32) (local $c i32) (local $e i32)
 *     (local.set $end (i32.add (local.get $i) (local.get $n)))
 *     (block $done
 *       (loop $chunk
 *         (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
 *         (local.set $v (v128.load align=1 (local.get $i)))
 *         (v128.store align=1 (local.get $o) (local.get $v))
 *         (local.set $m (i8x16.bitmask (v128.or
 *           (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x20)))
 *           (v128.or (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x22)))
 *                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c)))))))
 *         (if (i32.eqz (local.get $m))
 *           (then
 *             (local.set $i (i32.add (local.get $i) (i32.const 16)))
 *             (local.set $o (i32.add (local.get $o) (i32.const 16)))
 *             (br $chunk)))
 *         (local.set $m (i32.ctz (local.get $m)))
 *         (local.set $c (i32.load8_u (i32.add (local.get $i) (local.get $m))))
 *         (local.set $i (i32.add (i32.add (local.get $i) (local.get $m)) (i32.const 1)))
 *         (local.set $o (call $esc (i32.add (local.get $o) (local.get $m)) (local.get $c)))
 *         (br $chunk)))
 *     (block $tdone
 *       (loop $tail
 *         (br_if $tdone (i32.ge_u (local.get $i) (local.get $end)))
 *         (local.set $c (i32.load8_u (local.get $i)))
 *         (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *         (if (i32.and (i32.ge_u (local.get $c) (i32.const 0x20)) (i32.and (i32.ne (local.get $c) (i32.const 0x22)) (i32.ne (local.get $c) (i32.const 0x5c))))
 *           (then
 *             (i32.store8 (local.get $o) (local.get $c))
 *             (local.set $o (i32.add (local.get $o) (i32.const 1))))
 *           (else (local.set $o (call $esc (local.get $o) (local.get $c)))))
 *         (br $tail)))
 *     (local.get $o))
 *   (func $esc (param $o i32) (param $c i32) (result i32)
 *     (local $e i32)
 *     (local.set $e (i32.load8_u (local.get $c)))
 *     (i32.store8 (local.get $o) (i32.const 0x5c))
 *     (if (i32.ne (local.get $e) (i32.const 1))
 *       (then
 *         (i32.store8 offset=1 (local.get $o) (local.get $e))
 *         (return (i32.add (local.get $o) (i32.const 2)))))
 *     (i32.store offset=1 (local.get $o) (i32.const 0x30303075)) ;; "u00" + placeholder
 *     (i32.store8 offset=4 (local.get $o) (i32.load8_u offset=128 (i32.shr_u (local.get $c) (i32.const 4))))
 *     (i32.store8 offset=5 (local.get $o) (i32.load8_u offset=128 (i32.and (local.get $c) (i32.const 15))))
 *     (i32.add (local.get $o) (i32.const 6)))
 * )
 */

const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0e, 0x02, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f,
  0x03, 0x03, 0x02, 0x00, 0x01, 0x05, 0x03, 0x01, 0x00, 0x01, 0x07, 0x13, 0x02, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x06, 0x65,
  0x73, 0x63, 0x61, 0x70, 0x65, 0x00, 0x00, 0x0a, 0xaf, 0x02, 0x02, 0xd7, 0x01, 0x03, 0x01, 0x7f, 0x01, 0x7b, 0x03, 0x7f, 0x20, 0x00, 0x20, 0x01,
  0x6a, 0x21, 0x03, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x41, 0x10, 0x6a, 0x20, 0x03, 0x4b, 0x0d, 0x01, 0x20, 0x00, 0xfd, 0x00, 0x00, 0x00, 0x21,
  0x04, 0x20, 0x02, 0x20, 0x04, 0xfd, 0x0b, 0x00, 0x00, 0x20, 0x04, 0x41, 0x20, 0xfd, 0x0f, 0xfd, 0x26, 0x20, 0x04, 0x41, 0x22, 0xfd, 0x0f, 0xfd,
  0x23, 0x20, 0x04, 0x41, 0xdc, 0x00, 0xfd, 0x0f, 0xfd, 0x23, 0xfd, 0x50, 0xfd, 0x50, 0xfd, 0x64, 0x21, 0x05, 0x20, 0x05, 0x45, 0x04, 0x40, 0x20,
  0x00, 0x41, 0x10, 0x6a, 0x21, 0x00, 0x20, 0x02, 0x41, 0x10, 0x6a, 0x21, 0x02, 0x0c, 0x01, 0x0b, 0x20, 0x05, 0x68, 0x21, 0x05, 0x20, 0x00, 0x20,
  0x05, 0x6a, 0x2d, 0x00, 0x00, 0x21, 0x06, 0x20, 0x00, 0x20, 0x05, 0x6a, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x20, 0x02, 0x20, 0x05, 0x6a, 0x20, 0x06,
  0x10, 0x01, 0x21, 0x02, 0x0c, 0x00, 0x0b, 0x0b, 0x02, 0x40, 0x03, 0x40, 0x20, 0x00, 0x20, 0x03, 0x4f, 0x0d, 0x01, 0x20, 0x00, 0x2d, 0x00, 0x00,
  0x21, 0x06, 0x20, 0x00, 0x41, 0x01, 0x6a, 0x21, 0x00, 0x20, 0x06, 0x41, 0x20, 0x4f, 0x20, 0x06, 0x41, 0x22, 0x47, 0x20, 0x06, 0x41, 0xdc, 0x00,
  0x47, 0x71, 0x71, 0x04, 0x40, 0x20, 0x02, 0x20, 0x06, 0x3a, 0x00, 0x00, 0x20, 0x02, 0x41, 0x01, 0x6a, 0x21, 0x02, 0x05, 0x20, 0x02, 0x20, 0x06,
  0x10, 0x01, 0x21, 0x02, 0x0b, 0x0c, 0x00, 0x0b, 0x0b, 0x20, 0x02, 0x0b, 0x54, 0x01, 0x01, 0x7f, 0x20, 0x01, 0x2d, 0x00, 0x00, 0x21, 0x02, 0x20,
  0x00, 0x41, 0xdc, 0x00, 0x3a, 0x00, 0x00, 0x20, 0x02, 0x41, 0x01, 0x47, 0x04, 0x40, 0x20, 0x00, 0x20, 0x02, 0x3a, 0x00, 0x01, 0x20, 0x00, 0x41,
  0x02, 0x6a, 0x0f, 0x0b, 0x20, 0x00, 0x41, 0xf5, 0xe0, 0xc0, 0x81, 0x03, 0x36, 0x02, 0x01, 0x20, 0x00, 0x20, 0x01, 0x41, 0x04, 0x76, 0x2d, 0x00,
  0x80, 0x01, 0x3a, 0x00, 0x04, 0x20, 0x00, 0x20, 0x01, 0x41, 0x0f, 0x71, 0x2d, 0x00, 0x80, 0x01, 0x3a, 0x00, 0x05, 0x20, 0x00, 0x41, 0x06, 0x6a,
  0x0b, 0x0b, 0x46, 0x03, 0x00, 0x41, 0x00, 0x0b, 0x23, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x62, 0x74, 0x6e, 0x01, 0x66, 0x72, 0x01,
  0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x22, 0x00, 0x41, 0xdc, 0x00,
  0x0b, 0x01, 0x5c, 0x00, 0x41, 0x80, 0x01, 0x0b, 0x10, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65,
  0x66,
]);

/** Texts up to this many UTF-16 code units are escaped here (the memory grows to about 9 bytes a unit). */
export const MAX_CHARS = 1 << 18;
/** Shorter texts are cheaper in JS than the call and the copies. */
export const MIN_CHARS = 48;

/** Where the UTF-8 input starts: after the escape and hex tables. */
const SRC = 256;
const PAGE = 65536;

interface Escaper {
  memory: WebAssembly.Memory;
  escape: (i: number, n: number, o: number) => number;
}

let escaper: Escaper | null | undefined;
let view = new Uint8Array(0);
/** view from SRC on: where each text is encoded (kept, not made per call). */
let input = view;
const encoder = new TextEncoder();

function load(): Escaper | null {
  try {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(MODULE));
    const { memory, escape } = instance.exports as unknown as Escaper;
    view = new Uint8Array(memory.buffer);
    input = view.subarray(SRC);
    return { memory, escape };
  } catch {
    return null; // no WebAssembly, or no SIMD: the JS writer does it all
  }
}

/**
 * The bytes JSON.stringify(s) writes between its quotes, as UTF-8: a view valid until the next
 * call. Null when the caller must write them itself (see above).
 */
export function escapeJsonText(s: string): Uint8Array | null {
  const dst = escapeAt(s, 0, 0);
  return dst < 0 ? null : view.subarray(dst, end);
}

/**
 * `prefix`, then the bytes escapeJsonText(s) gives, then `suffix`, as one view (valid until the
 * next call): a text framed in canonical JSON is hashed where it was escaped, with no copy.
 * Null exactly when escapeJsonText(s) is.
 */
export function escapeJsonTextFramed(s: string, prefix: Uint8Array, suffix: Uint8Array): Uint8Array | null {
  const dst = escapeAt(s, prefix.length, suffix.length);
  if (dst < 0) return null;
  view.set(prefix, dst - prefix.length);
  view.set(suffix, end);
  return view.subarray(dst - prefix.length, end + suffix.length);
}

/** Where the last escape's output ended. */
let end = 0;

/** Escapes s with `before` free bytes ahead of the output and `after` behind it; the output's offset, or -1. */
function escapeAt(s: string, before: number, after: number): number {
  const n = s.length;
  if (n < MIN_CHARS || n > MAX_CHARS) return -1;
  if (escaper === undefined) escaper = load();
  if (escaper === null) return -1;
  // Input: at most 3 bytes a code unit; output after it: at most 6 bytes a code unit, plus slack.
  const dst = SRC + 3 * n + 16 + before;
  const need = dst + 6 * n + 16 + after;
  if (need > view.length) {
    escaper.memory.grow(Math.ceil((need - view.length) / PAGE));
    view = new Uint8Array(escaper.memory.buffer);
    input = view.subarray(SRC);
  }
  // encodeInto writes at most 3n bytes here, so never as far as dst.
  const { written } = encoder.encodeInto(s, input);
  // Non-ASCII text may hold a lone surrogate, which encodeInto would replace by U+FFFD.
  if (written !== n && !(s as string & { isWellFormed(): boolean }).isWellFormed()) return -1;
  end = escaper.escape(SRC, written, dst);
  return dst;
}
