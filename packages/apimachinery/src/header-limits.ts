// How large a request's header section may be, for every server here.

/**
 * Go's http.DefaultMaxHeaderBytes (1 MiB), which kube-apiserver and the kubelet serve with: the
 * request line and every header together. Long label selectors in a URL fit; a server answers a
 * larger section with 431 Request Header Fields Too Large.
 */
export const MAX_HEADER_BYTES = 1024 * 1024;
