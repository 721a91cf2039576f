/** The OAuth 2.0 scopes a game may ask for. offline_access: the grant also gets a refresh token (the consent page says so). */
export const SUPPORTED_SCOPES = ['profile', 'offline_access'] as const;
export const OFFLINE_ACCESS = 'offline_access';
export const DEFAULT_SCOPE = 'profile';
