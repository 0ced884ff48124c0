/** What the gateway logs about a request but only the routes learn (the calling key). */
export interface RequestInfo {
  keyId?: string;
}

const infos = new WeakMap<Request, RequestInfo>();

export function requestInfo(request: Request): RequestInfo {
  let info = infos.get(request);
  if (!info) infos.set(request, (info = {}));
  return info;
}
