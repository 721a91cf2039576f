/** A UUID as PostgreSQL writes one (any version): what every id of a row is. */
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Whether `s` can be a row's id: checked before a query, so a malformed one is a 4xx, not a 500. */
export const isUuid = (s: string) => UUID.test(s);
