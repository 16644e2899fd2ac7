/* Spark's parse_url over one URL text, as java.net.URI parses it: see codec/spark_url.c. */
#ifndef VPUSH_SPARK_URL_H
#define VPUSH_SPARK_URL_H

#include <stdint.h>

/* A part of a URL: [start, end) of the text, or absent (start < 0: Java's null). */
typedef struct {
    int64_t start, end;
} UrlSpan;

/* The raw components java.net.URI(String) keeps, each absent where its getter returns null. */
typedef struct {
    UrlSpan scheme, authority, user_info, host, path, query, fragment;
} UrlParts;

/* The parts Spark's ParseUrl extracts, numbered as vpush.codec.native.URL_PARTS lists them. */
enum { URL_HOST = 0, URL_PATH = 1, URL_QUERY = 2, URL_REF = 3, URL_PROTOCOL = 4, URL_FILE = 5, URL_AUTHORITY = 6, URL_USERINFO = 7 };

/* Parse text[0..length) (UTF-8) as new java.net.URI(text) does: 1 with its components in parts,
 * 0 where the constructor throws URISyntaxException. */
int spark_parse_url(const uint8_t *text, int64_t length, UrlParts *parts);

#endif
