/** The environment variable holding the team store's URL when no config file names another. */
export const defaultRemoteUrlVariable = 'ACODE_REMOTE_URL';

/** `remote.*` when no config file sets them; here, away from the settings' zod schema, so a path that reads no config file loads none of it. */
export const defaultRemoteConfig = { url_env: defaultRemoteUrlVariable, statement_timeout_seconds: 20 } as const;
