/** Opaque keyset cursors: the sort keys of the last item, as base64url JSON. */
export const encodeKeys = (keys: string[]) => Buffer.from(JSON.stringify(keys)).toString('base64url');

/** The keys of a cursor this service issued, or undefined when it is not one (checked by `valid`). */
export function decodeKeys(cursor: string, valid: (keys: string[]) => boolean): string[] | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || !value.every((k) => typeof k === 'string')) return undefined;
    return valid(value as string[]) ? (value as string[]) : undefined;
  } catch {
    return undefined;
  }
}
