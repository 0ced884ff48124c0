/** One JSON object per line on stdout; the only logger, so every line has the same shape. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function createLogger(enabled: boolean): Logger {
  const write = (level: string, event: string, fields: LogFields = {}) => {
    if (!enabled) return;
    process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }) + '\n');
  };
  return {
    info: (event, fields) => write('info', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}
