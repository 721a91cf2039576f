declare module 'inflation' {
  import type { Readable } from 'node:stream';
  /** The request stream, inflated according to its Content-Encoding (gzip, deflate, identity). */
  export default function inflate(stream: Readable, options?: { limit?: number | string }): Readable;
}
