/* Spark's parse_url: the URL parsed as java.net.URI(String) parses it (Spark's ParseUrlEvaluator
 * calls new URI(url) and reads getHost, getRawPath, getRawQuery, getRawFragment, getScheme,
 * getRawAuthority and getRawUserInfo).
 *
 * This follows the JDK's URI.Parser (RFC 2396 with its documented deviations) step by step, over
 * UTF-8 bytes rather than UTF-16 chars: every character the parser tests against a mask or a
 * delimiter is ASCII, so a byte at or past 0x80 never matches one, and where the parser lets a
 * "visible non-US-ASCII" char through (scanEscape) the whole code point is stepped over at once
 * (a supplementary code point is two surrogate chars in Java, each let through alike). A throw
 * of URISyntaxException is URL_THROW here; parseAuthority catches the ones parseServer raises and
 * falls back to a registry-based authority, as the JDK does. */
#include "spark_url.h"

#include <string.h>

#define URL_THROW (-2)

/* The JDK's 128-bit character masks (URI.java's L_* and H_* constants), low: chars 0-63, high:
 * 64-127; bit 0 of a low mask (L_ESCAPED) lets escapes and visible non-ASCII chars through. */
#define L_DIGIT 0x3FF000000000000ULL
#define H_ALPHA (0x7FFFFFEULL | 0x7FFFFFE00000000ULL)
#define L_ALPHANUM L_DIGIT
#define H_ALPHANUM H_ALPHA
#define H_HEX 0x7E0000007EULL
#define L_MARK 0x678200000000ULL
#define H_MARK 0x4000000080000000ULL
#define L_UNRESERVED (L_ALPHANUM | L_MARK)
#define H_UNRESERVED (H_ALPHANUM | H_MARK)
#define L_RESERVED 0xAC00985000000000ULL
#define H_RESERVED 0x28000001ULL
#define L_ESCAPED 1ULL
#define L_URIC (L_RESERVED | L_UNRESERVED | L_ESCAPED)
#define H_URIC (H_RESERVED | H_UNRESERVED)
#define L_PCHAR (L_UNRESERVED | L_ESCAPED | 0x2400185000000000ULL)
#define H_PCHAR (H_UNRESERVED | 0x1ULL)
#define L_PATH (L_PCHAR | 0x800800000000000ULL)
#define H_PATH H_PCHAR
#define L_DASH 0x200000000000ULL
#define L_DOT 0x400000000000ULL
#define L_USERINFO (L_UNRESERVED | L_ESCAPED | 0x2C00185000000000ULL)
#define H_USERINFO H_UNRESERVED
#define L_REG_NAME (L_UNRESERVED | L_ESCAPED | 0x2C00185000000000ULL)
#define H_REG_NAME (H_UNRESERVED | 0x1ULL)
#define L_SERVER (L_USERINFO | L_ALPHANUM | L_DASH | 0x400400000000000ULL)
#define H_SERVER (H_USERINFO | H_ALPHANUM | 0x28000001ULL)
#define L_SERVER_PERCENT (L_SERVER | 0x2000000000ULL)
#define L_SCHEME (L_DIGIT | 0x680000000000ULL)
#define H_SCHEME H_ALPHA
#define L_SCOPE_ID (L_ALPHANUM | 0x400000000000ULL)
#define H_SCOPE_ID (H_ALPHANUM | 0x80000000ULL)

typedef struct {
    const uint8_t *in;
    UrlParts *parts;
    int ipv6_bytes;
} Parser;

static const UrlSpan ABSENT = {-1, -1};

static int match(uint8_t c, uint64_t low, uint64_t high) {
    if (c == 0) return 0; /* as the JDK: NUL has no slot in the masks */
    if (c < 64) return (int)((low >> c) & 1);
    if (c < 128) return (int)((high >> (c - 64)) & 1);
    return 0;
}

static int at(const Parser *P, int64_t p, int64_t n, char c) { return p < n && P->in[p] == (uint8_t)c; }

static int at2(const Parser *P, int64_t p, int64_t n, char c, char d) { return p + 1 < n && P->in[p] == (uint8_t)c && P->in[p + 1] == (uint8_t)d; }

static int in_set(uint8_t c, const char *set) { return c != 0 && c < 128 && strchr(set, c) != NULL; }

/* scan(start, end, err, stop): -1 at a char of err, else the first char of stop or end. */
static int64_t scan_err_stop(const Parser *P, int64_t p, int64_t n, const char *err, const char *stop) {
    for (; p < n; p++) {
        if (in_set(P->in[p], err)) return -1;
        if (in_set(P->in[p], stop)) break;
    }
    return p;
}

static int64_t scan_stop(const Parser *P, int64_t p, int64_t n, const char *stop) { return scan_err_stop(P, p, n, "", stop); }

static int64_t scan_char(const Parser *P, int64_t p, int64_t n, char c) { return at(P, p, n, c) ? p + 1 : p; }

/* Java's Character.isSpaceChar (Zs, Zl, Zp) of a code point past U+0080. */
static int is_space_char(uint32_t cp) {
    return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

/* The code point at in[p] and its length in bytes (0 if not UTF-8). */
static int decode(const uint8_t *in, int64_t p, int64_t n, uint32_t *cp) {
    uint8_t b = in[p];
    int len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
    if (len == 0 || p + len > n) return 0;
    *cp = b & (0x3F >> (len - 1));
    for (int k = 1; k < len; k++) {
        if ((in[p + k] & 0xC0) != 0x80) return 0;
        *cp = (*cp << 6) | (in[p + k] & 0x3F);
    }
    return len;
}

/* scanEscape: past a well-formed %XX (a malformed one throws), past a visible non-ASCII char
 * (past U+0080, not a space char, not an ISO control), else p. */
static int64_t scan_escape(const Parser *P, int64_t p, int64_t n) {
    uint8_t c = P->in[p];
    uint32_t cp;
    int len;
    if (c == '%') {
        if (p + 3 <= n && match(P->in[p + 1], L_DIGIT, H_HEX) && match(P->in[p + 2], L_DIGIT, H_HEX)) return p + 3;
        return URL_THROW;
    }
    if (c >= 0x80 && (len = decode(P->in, p, n, &cp)) > 0 && cp > 128 && !is_space_char(cp) && !(cp >= 0x7F && cp <= 0x9F))
        return p + len;
    return p;
}

/* The chars from p that match the masks (escapes too where low holds L_ESCAPED). */
static int64_t scan_mask(const Parser *P, int64_t p, int64_t n, uint64_t low, uint64_t high) {
    while (p < n) {
        if (match(P->in[p], low, high)) {
            p++;
            continue;
        }
        if (low & L_ESCAPED) {
            int64_t q = scan_escape(P, p, n);
            if (q == URL_THROW) return URL_THROW;
            if (q > p) {
                p = q;
                continue;
            }
        }
        break;
    }
    return p;
}

/* checkChars: 0, or URL_THROW unless every char of [p, n) matches. */
static int check_chars(const Parser *P, int64_t p, int64_t n, uint64_t low, uint64_t high) {
    int64_t q = scan_mask(P, p, n, low, high);
    return q == URL_THROW || q < n ? URL_THROW : 0;
}

static UrlSpan span(int64_t start, int64_t end) {
    UrlSpan s = {start, end};
    return s;
}

/* scanByte: digits whose value fits a byte (at most three significant ones). */
static int64_t scan_byte(const Parser *P, int64_t p, int64_t n) {
    int64_t q = scan_mask(P, p, n, L_DIGIT, 0), i = p;
    if (q <= p) return q;
    while (i < q && P->in[i] == '0') i++;
    if (q - i < 3) return q;
    if (q - i > 3) return p;
    return (P->in[i] - '0') * 100 + (P->in[i + 1] - '0') * 10 + (P->in[i + 2] - '0') > 255 ? p : q;
}

/* scanIPv4Address: the end of a dotted quad from p; -1 where there is none (strict: [p, n) holds
 * digits and dots only, and anything but a quad throws). */
static int64_t scan_ipv4(const Parser *P, int64_t p, int64_t n, int strict) {
    int64_t q = p, m = scan_mask(P, p, n, L_DIGIT | L_DOT, 0);
    if (m <= p || (strict && m != n)) return -1;
    for (int k = 0; k < 4; k++) {
        if (k > 0) {
            if ((q = scan_char(P, p, m, '.')) <= p) break;
            p = q;
        }
        if ((q = scan_byte(P, p, m)) <= p) break;
        p = q;
        if (k == 3) {
            if (q < m) break;
            return q;
        }
    }
    return strict ? URL_THROW : -1;
}

static int64_t take_ipv4(const Parser *P, int64_t start, int64_t n) {
    int64_t p = scan_ipv4(P, start, n, 1);
    return p == URL_THROW || p <= start ? URL_THROW : p;
}

/* parseIPv4Address: -1 unless a quad starts at start, followed by nothing or a ':'. */
static int64_t parse_ipv4(Parser *P, int64_t start, int64_t n) {
    int64_t p = scan_ipv4(P, start, n, 0);
    if (p < 0) return -1;
    if (p > start && p < n && P->in[p] != ':') return -1;
    if (p > start) P->parts->host = span(start, p);
    return p;
}

/* parseHostname: labels of letters, digits and inner dashes, the last one starting with a letter. */
static int64_t parse_hostname(Parser *P, int64_t start, int64_t n) {
    int64_t p = start, q, l = -1;
    do {
        q = scan_mask(P, p, n, L_ALPHANUM, H_ALPHANUM);
        if (q <= p) break;
        l = p;
        p = q;
        q = scan_mask(P, p, n, L_ALPHANUM | L_DASH, H_ALPHANUM);
        if (q > p) {
            if (P->in[q - 1] == '-') return URL_THROW;
            p = q;
        }
        q = scan_char(P, p, n, '.');
        if (q <= p) break;
        p = q;
    } while (p < n);
    if (p < n && !at(P, p, n, ':')) return URL_THROW;
    if (l < 0) return URL_THROW;
    if (l > start && !match(P->in[l], 0, H_ALPHA)) return URL_THROW;
    P->parts->host = span(start, p);
    return p;
}

/* scanHexSeq: hex4 *(":" hex4), stopping before "::" or an IPv4 tail; -1 where none starts. */
static int64_t scan_hex_seq(Parser *P, int64_t p, int64_t n) {
    int64_t q = scan_mask(P, p, n, L_DIGIT, H_HEX);
    if (q <= p || at(P, q, n, '.')) return -1;
    if (q > p + 4) return URL_THROW;
    P->ipv6_bytes += 2;
    p = q;
    while (p < n) {
        if (!at(P, p, n, ':') || at(P, p + 1, n, ':')) break;
        p++;
        q = scan_mask(P, p, n, L_DIGIT, H_HEX);
        if (q <= p) return URL_THROW;
        if (at(P, q, n, '.')) {
            p--;
            break;
        }
        if (q > p + 4) return URL_THROW;
        P->ipv6_bytes += 2;
        p = q;
    }
    return p;
}

static int64_t scan_hex_post(Parser *P, int64_t p, int64_t n) {
    int64_t q;
    if (p == n) return p;
    q = scan_hex_seq(P, p, n);
    if (q == URL_THROW) return URL_THROW;
    if (q > p) {
        p = q;
        if (at(P, p, n, ':')) {
            p = take_ipv4(P, p + 1, n);
            P->ipv6_bytes += 4;
        }
        return p;
    }
    p = take_ipv4(P, p, n);
    P->ipv6_bytes += 4;
    return p;
}

/* parseIPv6Reference: [start, n) is an IPv6 address of RFC 2373 (the JDK's revised grammar). */
static int64_t parse_ipv6(Parser *P, int64_t start, int64_t n) {
    int64_t p = start, q = scan_hex_seq(P, p, n);
    int compressed = 0;
    if (q == URL_THROW) return URL_THROW;
    if (q > p) {
        p = q;
        if (at2(P, p, n, ':', ':')) {
            compressed = 1;
            p = scan_hex_post(P, p + 2, n);
        } else if (at(P, p, n, ':')) {
            p = take_ipv4(P, p + 1, n);
            P->ipv6_bytes += 4;
        }
    } else if (at2(P, p, n, ':', ':')) {
        compressed = 1;
        p = scan_hex_post(P, p + 2, n);
    }
    if (p == URL_THROW || p < n || P->ipv6_bytes > 16 || (!compressed && P->ipv6_bytes < 16) || (compressed && P->ipv6_bytes == 16))
        return URL_THROW;
    return p;
}

/* parseServer: [userinfo@]host[:port] filling [start, n), or URL_THROW. */
static int64_t parse_server(Parser *P, int64_t start, int64_t n) {
    int64_t p = start, q = scan_err_stop(P, p, n, "/?#", "@");
    if (q >= p && at(P, q, n, '@')) {
        if (check_chars(P, p, q, L_USERINFO, H_USERINFO) < 0) return URL_THROW;
        P->parts->user_info = span(p, q);
        p = q + 1;
    }
    if (at(P, p, n, '[')) {
        p++;
        q = scan_err_stop(P, p, n, "/?#", "]");
        if (!(q > p && at(P, q, n, ']'))) return URL_THROW;
        int64_t r = scan_stop(P, p, q, "%");
        if (r > p) {
            if (parse_ipv6(P, p, r) == URL_THROW || r + 1 == q) return URL_THROW;
            if (r + 1 < q && check_chars(P, r + 1, q, L_SCOPE_ID, H_SCOPE_ID) < 0) return URL_THROW;
        } else if (parse_ipv6(P, p, q) == URL_THROW) {
            return URL_THROW;
        }
        P->parts->host = span(p - 1, q + 1);
        p = q + 1;
    } else {
        q = parse_ipv4(P, p, n);
        if (q <= p) q = parse_hostname(P, p, n);
        if (q == URL_THROW) return URL_THROW;
        p = q;
    }
    if (at(P, p, n, ':')) {
        p++;
        q = scan_stop(P, p, n, "/");
        if (q > p) {
            int64_t port = 0;
            if (check_chars(P, p, q, L_DIGIT, 0) < 0) return URL_THROW;
            for (int64_t k = p; k < q; k++) {
                port = port * 10 + (P->in[k] - '0');
                if (port > 2147483647) return URL_THROW; /* Integer.parseInt: "Malformed port number" */
            }
            p = q;
        }
    }
    return p < n ? URL_THROW : p;
}

/* parseAuthority: a server-based authority where [start, n) parses as one, else a registry-based
 * one where its chars allow; URL_THROW otherwise. */
static int64_t parse_authority(Parser *P, int64_t start, int64_t n) {
    int64_t p = start, q = p, server, reg;
    int server_chars, reg_chars;
    if (scan_stop(P, p, n, "]") > p) /* a literal IPv6 address: '%' is a plain char */
        server = scan_mask(P, p, n, L_SERVER_PERCENT, H_SERVER);
    else
        server = scan_mask(P, p, n, L_SERVER, H_SERVER);
    if (server == URL_THROW) return URL_THROW;
    server_chars = server == n;
    reg = scan_mask(P, p, n, L_REG_NAME, H_REG_NAME);
    if (reg == URL_THROW) return URL_THROW;
    reg_chars = reg == n;
    if (reg_chars && !server_chars) {
        P->parts->authority = span(p, n);
        return n;
    }
    if (server_chars) {
        q = parse_server(P, p, n);
        if (q == URL_THROW) { /* the JDK catches it: undone, and tried as a registry name */
            P->parts->user_info = ABSENT;
            P->parts->host = ABSENT;
            q = p;
        } else {
            P->parts->authority = span(p, n);
        }
    }
    if (q < n) {
        if (!reg_chars) return URL_THROW;
        P->parts->authority = span(p, n);
    }
    return n;
}

/* parseHierarchical: [//authority]<path>[?<query>] from start. */
static int64_t parse_hierarchical(Parser *P, int64_t start, int64_t n) {
    int64_t p = start, q;
    if (at(P, p, n, '/') && at(P, p + 1, n, '/')) {
        p += 2;
        q = scan_stop(P, p, n, "/?#");
        if (q > p) {
            p = parse_authority(P, p, q);
            if (p == URL_THROW) return URL_THROW;
        } else if (q >= n) {
            return URL_THROW; /* an empty authority only before a path, query or fragment */
        }
    }
    q = scan_stop(P, p, n, "?#");
    if (check_chars(P, p, q, L_PATH, H_PATH) < 0) return URL_THROW;
    P->parts->path = span(p, q);
    p = q;
    if (at(P, p, n, '?')) {
        p++;
        q = scan_stop(P, p, n, "#");
        if (check_chars(P, p, q, L_URIC, H_URIC) < 0) return URL_THROW;
        P->parts->query = span(p, q);
        p = q;
    }
    return p;
}

int spark_parse_url(const uint8_t *text, int64_t n, UrlParts *parts) {
    Parser P = {text, parts, 0};
    int64_t p, q;
    parts->scheme = parts->authority = parts->user_info = parts->host = ABSENT;
    parts->path = parts->query = parts->fragment = ABSENT;
    p = scan_err_stop(&P, 0, n, "/?#", ":");
    if (p >= 0 && at(&P, p, n, ':')) {
        if (p == 0 || !match(text[0], 0, H_ALPHA) || check_chars(&P, 1, p, L_SCHEME, H_SCHEME) < 0) return 0;
        parts->scheme = span(0, p);
        p++;
        if (at(&P, p, n, '/')) {
            p = parse_hierarchical(&P, p, n);
        } else { /* opaque: no path, query or authority */
            q = scan_stop(&P, p, n, "#");
            if (q <= p || check_chars(&P, p, q, L_URIC, H_URIC) < 0) return 0;
            p = q;
        }
    } else {
        p = parse_hierarchical(&P, 0, n);
    }
    if (p == URL_THROW) return 0;
    if (at(&P, p, n, '#')) {
        if (check_chars(&P, p + 1, n, L_URIC, H_URIC) < 0) return 0;
        parts->fragment = span(p + 1, n);
        p = n;
    }
    return p >= n;
}
