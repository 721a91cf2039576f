/** One field-level problem of a rejected input (a type, not an interface: it is a JSON object). */
export type FieldError = {
  field: string;
  message: string;
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Record Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Server Error',
  503: 'Service Unavailable',
};

export interface AppErrorOptions {
  fields?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the problem body (for example OAuth's `error` and `error_description`). */
  extensions?: Record<string, unknown>;
  /** application/problem+json unless a protocol fixes another (OAuth's token endpoint: application/json). */
  contentType?: string;
  cause?: unknown;
  /** The problem's title, when the status's usual one says the wrong thing. */
  title?: string;
}

/**
 * The one error type the service raises on purpose. `code` is stable and machine-readable; `detail`
 * is for people and never carries secrets.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;
  readonly contentType: string;
  private readonly customTitle: string | undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail, { cause: options.cause });
    this.fields = options.fields;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
    this.contentType = options.contentType ?? 'application/problem+json';
    this.customTitle = options.title;
  }

  get title(): string {
    return this.customTitle ?? TITLES[this.status] ?? 'Error';
  }
}

/** Joi's details as field errors: the path joined with dots, the message without Joi's quoted label. */
export const fieldErrors = (
  details: { path: (string | number)[]; message: string }[],
  root = 'body',
): FieldError[] =>
  details.map((d) => ({
    field: d.path.length ? d.path.join('.') : root,
    message: d.message.replace(/^"[^"]*" /, ''),
  }));

export const validationError = (fields: FieldError[], detail = 'The request has invalid fields.') =>
  new AppError(400, 'validation_failed', detail, { fields });

export const notFound = (what: string) => new AppError(404, 'not_found', `${what} was not found.`);

export const unauthorizedClient = () =>
  new AppError(
    401,
    'invalid_client',
    'Client authentication failed: send valid client_id and client_secret headers.',
  );

export const serviceUnavailable = (detail: string) => new AppError(503, 'service_unavailable', detail);
