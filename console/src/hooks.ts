import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

/** Data loaded from the API, reloaded every `pollMs` (so claims made elsewhere show within seconds). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | Error | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(async () => {
    try {
      setData(await loadRef.current());
      setError(undefined);
    } catch (err) {
      setError(err as Error);
    }
  }, []);
  useEffect(() => {
    setData(undefined);
    void reload();
    if (!pollMs) return undefined;
    const timer = setInterval(() => void reload(), pollMs);
    return () => clearInterval(timer);
  }, deps);
  return { data, error, reload };
}

const typing = (target: EventTarget | null) => {
  const el = target as HTMLElement | null;
  if (!el) return false;
  const tag = el.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable;
};

/**
 * Single-key shortcuts (j, k, c, ...) while the focus is not in a field, so typing a note never
 * triggers one. Keys with Ctrl, Alt or Meta are left to the browser.
 */
export function useShortcuts(keys: Record<string, () => void>, enabled = true) {
  const ref = useRef(keys);
  ref.current = keys;
  useEffect(() => {
    if (!enabled) return undefined;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.altKey || e.metaKey || typing(e.target)) return;
      const action = ref.current[e.key];
      if (!action) return;
      e.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** An API error as a moderator reads it: the message and its code. */
export const describeError = (err: unknown) =>
  err instanceof ApiError ? `${err.message} (${err.code})` : String(err);

/**
 * One action at a time on a screen: `run` marks it busy, shows `done` (or what `done` makes of the
 * action's result) or the error as a notice, and reloads the screen's data after a success.
 */
export function useAction(reload: () => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>();
  const fail = (err: unknown) => setNotice({ kind: 'error', text: describeError(err) });
  async function run<T>(what: () => Promise<T>, done: string | ((result: T) => string)) {
    setBusy(true);
    try {
      const result = await what();
      setNotice({ kind: 'ok', text: typeof done === 'string' ? done : done(result) });
      await reload();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }
  return { busy, setBusy, notice, setNotice, fail, run };
}
