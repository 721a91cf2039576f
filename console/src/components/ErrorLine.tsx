import { ApiError } from '../api';

/**
 * A load that failed, announced assertively: `notFound` when the API answered 404 and one is given,
 * otherwise the API's own message (after `prefix`).
 */
export function ErrorLine({
  error,
  notFound,
  prefix = '',
}: {
  error: Error | undefined;
  notFound?: string;
  prefix?: string;
}) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {notFound && error instanceof ApiError && error.status === 404 ? notFound : `${prefix}${error.message}`}
    </p>
  );
}
