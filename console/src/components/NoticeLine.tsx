import type { Notice } from '../hooks';

/** The outcome of the last action: announced politely when it went through, assertively when not. */
export function NoticeLine({ notice }: { notice: Notice | undefined }) {
  if (!notice) return null;
  return (
    <p className={notice.kind} role={notice.kind === 'error' ? 'alert' : 'status'}>
      {notice.text}
    </p>
  );
}
