/** The console's only door to the server: the public /v1 API, with the key the user typed. */

const KEY_STORAGE = 'rowsmith.apiKey';

export interface ApiErrorBody {
  status: number;
  error_key: string;
  message: string;
  fields?: Record<string, { message: string }[]>;
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly errorKey: string, message: string, readonly fields: Record<string, { message: string }[]> = {}) {
    super(message);
  }
  fieldMessage(path: string): string | undefined {
    return this.fields[path]?.[0]?.message;
  }
}

/** Kept in sessionStorage so closing the browser signs out. */
export const session = {
  get key(): string | null {
    return sessionStorage.getItem(KEY_STORAGE);
  },
  set key(value: string | null) {
    if (value === null) sessionStorage.removeItem(KEY_STORAGE);
    else sessionStorage.setItem(KEY_STORAGE, value);
  },
};

export interface Reply<T> {
  body: T;
  etag: string | null;
}

export async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = session.key): Promise<Reply<T>> {
  const init: RequestInit = { method, headers: { authorization: `ApiKey ${key ?? ''}`, ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const parsed = text ? safeJson(text) : null;
  if (!response.ok) {
    const error = (parsed ?? {}) as Partial<ApiErrorBody>;
    throw new ApiError(response.status, error.error_key ?? 'error', error.message ?? `${response.status} ${response.statusText}`, error.fields ?? {});
  }
  return { body: parsed as T, etag: response.headers.get('etag') };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path).then((r) => r.body),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}).then((r) => r.body),
  patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body).then((r) => r.body),
  del: <T>(path: string) => call<T>('DELETE', path).then((r) => r.body),
};

/** Fetches a file with the key (a plain link cannot send it) and hands it to the browser as a download. */
export async function download(path: string, fallbackName: string): Promise<number> {
  const response = await fetch(path, { headers: { authorization: `ApiKey ${session.key ?? ''}` } });
  if (!response.ok) throw new ApiError(response.status, 'download_failed', `download failed: ${response.status}`);
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  // The server's file name (a row's source keeps its upload's name) wins over the fallback.
  const disposition = response.headers.get('content-disposition') ?? '';
  const utf8 = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  const ascii = /filename="([^"]+)"/i.exec(disposition);
  anchor.download = utf8 ? decodeURIComponent(utf8[1]!) : ascii ? ascii[1]! : fallbackName;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return blob.size;
}

export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Reads a text/event-stream answer event by event (EventSource cannot POST or send a key). */
export async function* readEvents(response: Response): AsyncGenerator<{ event: string; data: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) yield { event, data: safeJson(data.join('\n')) };
    }
  }
}
