/* vpush.codec._native: rebuild Variant values from a shredded Variant column, in one pass; and
 * extract the value at a path from an unshredded one.
 *
 * Input: the column as pyarrow exports it through the Arrow C Data Interface (the PyCapsules of
 * `array.__arrow_c_array__()`), in the final layout of the shredding spec:
 *
 *     struct<metadata: binary, value: binary?, typed_value: T?>
 *     T = a primitive | struct<name: struct<value?, typed_value?>, ...> | list<struct<value?, typed_value?>>
 *
 * Output: the Variant `value` of every row, as the three buffers of an Arrow binary array
 * (validity, int32 offsets, data) allocated from pyarrow's memory pool. Rows are rebuilt without
 * the GIL, which is taken back only to grow the data buffer. The caller reuses the `metadata`
 * column unchanged.
 *
 * Each row follows the spec's (value, typed_value) table, recursively, and writes exactly the
 * bytes `vpush.codec.unshred` writes: objects sorted by name with the smallest id and offset
 * widths, typed primitives as `vpush.codec.builder.encode_primitive` (strings up to 63 bytes as
 * short strings), residual fields copied byte for byte.
 *
 * Safety: the Arrow arrays are trusted to be structurally valid (pyarrow builds and validates
 * them; the wrapper calls `validate()`), but list offsets, dictionary indices and child lengths
 * are still checked where they are used. Variant bytes are not trusted: every read of a residual
 * object or of a metadata dictionary is bounds-checked, so damaged bytes give an error code,
 * never an out-of-bounds read. Recursion follows the Arrow schema, whose depth is capped.
 *
 * A second entry point, extract(), reads unshredded columns (a binary `metadata` and a binary
 * `value`) and copies the value at a Variant path out of every row, as
 * `vpush.codec.path.extract_column` does; see "extraction along a path" below.
 *
 * A third, to_json(), renders every row of such a column as Spark's to_json text, as
 * `vpush.codec.json.to_json` does; see "to_json" below. A fourth, schema_of_variant(), gives each
 * row's schema as Spark's schema_of_variant prints it; see "schema_of_variant" below.
 *
 * strict_math() applies Spark's transcendental functions (ln, log, exp, pow, ...) to double
 * columns as Java's StrictMath computes them, bit for bit: the arithmetic is in strict_math.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spark_datetime.h"
#include "spark_datetime_format.h"
#include "json_path.h"
#include "spark_url.h"
#include "from_json.h"
#include "strict_math.h"
#include "spark_hash.h"
#include "spark_conv.h"
#include "spark_number_format.h"
#include "spark_hll.h"
#include "spark_aggregates.h"

/* ---- the Arrow C Data Interface (ABI defined by the Arrow specification) ------------------- */
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

/* ---- error codes, mirrored in native.py ---------------------------------------------------- */
enum {
    ERR_NONE = 0,
    ERR_UNSUPPORTED = 1, /* an Arrow encoding or layout this kernel does not read: use Python */
    ERR_SCHEMA = 2,      /* a shredded schema the spec does not allow */
    ERR_SHREDDING = 3,   /* data that breaks the shredding spec */
    ERR_MALFORMED = 4,   /* Variant metadata or value bytes that break the encoding spec */
    ERR_TOO_LARGE = 5,   /* the output does not fit one Arrow binary array */
    ERR_NOMEM = 6,
    ERR_PYTHON = 7,      /* a Python exception is set */
    ERR_UNKNOWN_TYPE = 8, /* a primitive type Spark 4.3 cannot read (to_json with reject_unknown) */
    /* 9 and 10 are below: ERR_DUPLICATE_KEY, ERR_PATH_MISMATCH */
    ERR_UNKNOWN_ID = 11,  /* malformed: a primitive type id the spec does not define (Spark's getType raises) */
};

/* Nested (value, typed_value) levels followed; real shredding schemas use a handful. */
#define MAX_LEVEL_DEPTH 64
#define MAX_SHORT_STRING_BYTES 63
#define MAX_DECIMAL_PRECISION 38
#define DECIMAL4_MAX_UNSCALED 999999999ULL
#define DECIMAL8_MAX_UNSCALED 999999999999999999ULL
#define DECIMAL16_MAX_UNSCALED (((unsigned __int128)5421010862427522170ULL << 64) | 687399551400673279ULL) /* 10**38 - 1 */
#define MAX_BINARY_ARRAY_BYTES INT32_MAX
#define U8_MAX_FIELDS 255
/* Rows rebuilt before the output is sized for the whole column. */
#define SIZE_SAMPLE_ROWS 1024
/* The most reserved from the sample; past it the buffer grows by doubling. */
#define MAX_PRERESERVE_BYTES (64LL << 20)

/* Variant primitive type ids (VariantEncoding.md). */
enum {
    PT_NULL = 0, PT_TRUE = 1, PT_FALSE = 2, PT_INT8 = 3, PT_INT16 = 4, PT_INT32 = 5, PT_INT64 = 6,
    PT_DOUBLE = 7, PT_DECIMAL4 = 8, PT_DECIMAL8 = 9, PT_DECIMAL16 = 10, PT_DATE = 11,
    PT_TIMESTAMP = 12, PT_TIMESTAMP_NTZ = 13, PT_FLOAT = 14, PT_BINARY = 15, PT_STRING = 16,
    PT_TIME = 17, PT_TIMESTAMP_NANOS = 18, PT_TIMESTAMP_NTZ_NANOS = 19, PT_UUID = 20,
    PT_LAST = 20
};
/* Payload bytes after the header byte; -1 for the 4-byte-length types. */
static const int8_t PRIMITIVE_FIXED_SIZE[PT_LAST + 1] = {
    0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, -1, -1, 8, 8, 8, 16,
};
enum { BASIC_PRIMITIVE = 0, BASIC_SHORT_STRING = 1, BASIC_OBJECT = 2, BASIC_ARRAY = 3 };
#define NULL_VALUE_BYTE 0x00

static int host_is_little_endian(void) {
    const uint16_t probe = 1;
    return *(const uint8_t *)&probe == 1;
}

/* ---- leaves: one Arrow column read by row ------------------------------------------------- */
enum { LK_BOOL, LK_FIXED, LK_OFF32, LK_OFF64, LK_VIEW };

typedef struct {
    /* The array the row indexes: the values, or the indices of a dictionary. */
    const uint8_t *valid;
    int64_t off;
    /* Dictionary: the indices' width and sign; the values array is the dictionary. */
    int dict;
    int index_width;
    int index_signed;
    const uint8_t *index;
    const uint8_t *dvalid;
    int64_t doff;
    int64_t dlen;
    /* Values. */
    int kind;
    int width;
    const uint8_t *b1;
    const uint8_t *b2;
    const uint8_t *const *vbufs;
    const int64_t *vsizes;
    int64_t nvbufs;
    /* Offsets: the first and last offset of the array read (the slice, or the dictionary). The
     * cheap validate() checks only these two against the data buffer, so every value read must
     * lie between them: offsets in between may go backwards or anywhere. */
    int64_t lo, hi;
} Leaf;

/* Distinct metadata dictionaries remembered at once: a file's rows share a handful of them, in
 * no particular order (a DuckDB-written event log alternates between five). */
#define META_SLOTS 8

/* ---- the schema tree ---------------------------------------------------------------------- */
enum { T_NONE, T_PRIMITIVE, T_OBJECT, T_ARRAY };
enum { ROLE_TOP, ROLE_FIELD, ROLE_ELEMENT };

typedef struct Level Level;

/* Where row j of a level stands: the value leaf's position (-1: null) and the typed_value's (a
 * primitive leaf's position, or the struct or list index; -1: null). */
typedef struct {
    int64_t vp;
    int64_t tp;
} Probe;

typedef struct {
    const uint8_t *name;
    size_t len;
    Level *level;
} Field;

typedef struct {
    int ptype;      /* the Variant primitive written */
    int in_width;   /* decimals: the Arrow storage width in bytes */
    int out_width;  /* decimals: 4, 8 or 16 */
    int scale;
    Leaf leaf;
} Primitive;

struct Level {
    char *path;       /* the group, relative to the Variant column ("" at the top) */
    /* The level's key in the caller's primitive_types: a tuple of steps from the top, a field's
     * name (str) or None for a list element; built only when primitive_types is given. Steps,
     * unlike a dotted path, cannot collide (a field literally named "a.b"). */
    PyObject *key;
    char *value_path;
    char *typed_path;
    /* The group (top struct, field group or list element struct). */
    const uint8_t *gvalid;
    int64_t goff;
    int has_value;
    Leaf value;
    int typed;
    /* typed_value struct or list */
    const uint8_t *tvalid;
    int64_t toff;
    Primitive prim;
    /* object: fields sorted by name bytes, and their ids in the current metadata */
    int64_t nfields;
    Field *fields;
    uint32_t *ids;  /* per metadata cache slot, nfields ids; ID_MISSING: not in the dictionary */
    Probe *probes;  /* the fields' probes for the object being written (one at a time per level) */
    uint64_t ids_gen[META_SLOTS];
    /* array */
    int large_list;
    const uint8_t *list_offsets;
    int64_t elem_len;
    Level *element;
    /* The field_offset_size of this level's last object or array, the guess for the next one. */
    int offset_size_guess;
};
#define ID_MISSING UINT32_MAX

/* ---- the work context --------------------------------------------------------------------- */
typedef struct {
    const uint8_t *name;
    uint32_t len;
    uint32_t id;
    const uint8_t *src;
    int64_t size;
} Entry; /* a residual field */

typedef struct {
    uint32_t id;
    int64_t pos;
} Kid; /* a child written to the output, at pos from its container's children */

typedef struct {
    const uint8_t *data;
    int64_t len;
    uint64_t dsize;
    int osz;
    int sorted; /* strictly ascending, checked, whatever the header's flag says */
    int64_t bytes_start;
    uint64_t gen; /* unique per parse, so that levels know their cached ids are stale */
} Meta;

typedef struct {
    /* The output: a pyarrow ResizableBuffer (from Arrow's memory pool, which reuses pages across
     * calls), written through a buffer view. */
    uint8_t *out;
    int64_t out_len, out_cap;
    PyObject *out_obj;
    Py_buffer out_view;
    int has_out_view;
    PyThreadState *ts; /* while the GIL is released */
    Entry *ent;
    int64_t ent_top, ent_cap;
    Kid *kid;
    int64_t kid_top, kid_cap;

    /* The current row's metadata bytes, and the dictionary parsed last. */
    const uint8_t *row_meta;
    int64_t row_meta_len;
    int row_meta_checked;
    Meta slots[META_SLOTS];
    int nslots;
    int victim;
    Meta *m; /* the current row's, once checked */
    uint64_t gens;

    Level **levels;
    int64_t nlevels, cap_levels;
    Leaf metadata;
    int has_metadata;
    Level *top;

    PyObject *overrides; /* {Level.key: the Variant primitive type id the layout names}, or NULL */

    int err;
    int64_t row;
    const char *err_path;
    int64_t err_offset;
    char msg[512];
} Ctx;

static int fail(Ctx *c, int code, const char *path, int64_t offset, const char *fmt, ...) {
    va_list ap;
    if (c->err != ERR_NONE) return -1;
    c->err = code;
    c->err_path = path;
    c->err_offset = offset;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static int nomem(Ctx *c) { return fail(c, ERR_NOMEM, "", -1, "out of memory"); }

static inline int bit(const uint8_t *bits, int64_t i) { return (bits[i >> 3] >> (i & 7)) & 1; }

static inline uint64_t read_le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void write_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline int int_size(uint64_t v) {
    return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFF ? 3 : 4;
}

static int grow(Ctx *c, void **buf, int64_t *cap, int64_t need, size_t item) {
    int64_t cap2 = *cap > INT64_MAX / 2 ? INT64_MAX : *cap * 2;
    void *p;
    if (cap2 < need) cap2 = need;
    if (cap2 < 64) cap2 = 64;
    if ((uint64_t)cap2 > SIZE_MAX / item) return nomem(c);
    p = realloc(*buf, (size_t)cap2 * item);
    if (p == NULL) return nomem(c);
    *buf = p;
    *cap = cap2;
    return 0;
}

/* Resize the output buffer to hold `need` bytes (amortized doubling), taking the GIL for it. */
static int grow_out(Ctx *c, int64_t need) {
    int64_t cap2 = c->out_cap > INT64_MAX / 2 ? INT64_MAX : c->out_cap * 2;
    PyObject *r;
    int status = 0;
    if (cap2 < need) cap2 = need;
    if (cap2 < 4096) cap2 = 4096;
    if (cap2 > PY_SSIZE_T_MAX) return nomem(c);
    if (c->ts != NULL) PyEval_RestoreThread(c->ts);
    if (c->has_out_view) {
        PyBuffer_Release(&c->out_view);
        c->has_out_view = 0;
    }
    r = PyObject_CallMethod(c->out_obj, "resize", "(n)", (Py_ssize_t)cap2);
    if (r == NULL || PyObject_GetBuffer(c->out_obj, &c->out_view, PyBUF_WRITABLE) < 0) {
        status = fail(c, ERR_PYTHON, "", -1, "cannot resize the output buffer");
    } else {
        c->has_out_view = 1;
        c->out = (uint8_t *)c->out_view.buf;
        c->out_cap = (int64_t)c->out_view.len;
    }
    Py_XDECREF(r);
    if (c->ts != NULL) c->ts = PyEval_SaveThread();
    return status;
}

static inline int reserve(Ctx *c, int64_t extra) {
    if (c->out_len + extra <= c->out_cap) return 0;
    return grow_out(c, c->out_len + extra);
}

static inline int push_kid(Ctx *c, uint32_t id, int64_t pos) {
    if (c->kid_top == c->kid_cap && grow(c, (void **)&c->kid, &c->kid_cap, c->kid_top + 1, sizeof(Kid)) < 0)
        return -1;
    c->kid[c->kid_top].id = id;
    c->kid[c->kid_top].pos = pos;
    c->kid_top++;
    return 0;
}

/* ---- leaves ------------------------------------------------------------------------------- */
/* The physical index of row j in the values array, -1 when null, -2 for a bad dictionary index. */
static inline int64_t leaf_pos(const Leaf *l, int64_t j) {
    int64_t p = l->off + j, k;
    if (l->valid != NULL && !bit(l->valid, p)) return -1;
    if (!l->dict) return p;
    switch (l->index_width) {
    case 1: k = l->index_signed ? (int64_t)(int8_t)l->index[p] : (int64_t)l->index[p]; break;
    case 2: {
        uint16_t u;
        memcpy(&u, l->index + 2 * p, 2);
        k = l->index_signed ? (int64_t)(int16_t)u : (int64_t)u;
        break;
    }
    case 4: {
        uint32_t u;
        memcpy(&u, l->index + 4 * p, 4);
        k = l->index_signed ? (int64_t)(int32_t)u : (int64_t)u;
        break;
    }
    default: {
        uint64_t u;
        memcpy(&u, l->index + 8 * p, 8);
        k = (int64_t)u; /* an unsigned index past INT64_MAX is negative here, and rejected */
        break;
    }
    }
    if (k < 0 || k >= l->dlen) return -2;
    k += l->doff;
    if (l->dvalid != NULL && !bit(l->dvalid, k)) return -1;
    return k;
}

/* The bytes of a binary-like leaf at physical index p. */
static inline int leaf_bytes(Ctx *c, const Leaf *l, int64_t p, const uint8_t **ptr, int64_t *len,
                             const char *path) {
    if (l->kind == LK_OFF32) {
        int32_t a, b;
        memcpy(&a, l->b1 + 4 * p, 4);
        memcpy(&b, l->b1 + 4 * (p + 1), 4);
        if (a < l->lo || b < a || b > l->hi)
            return fail(c, ERR_SCHEMA, path, -1, "bad Arrow binary offsets (%d, %d) outside (%lld, %lld)", a, b,
                        (long long)l->lo, (long long)l->hi);
        *ptr = l->b2 + a;
        *len = b - a;
        return 0;
    }
    if (l->kind == LK_OFF64) {
        int64_t a, b;
        memcpy(&a, l->b1 + 8 * p, 8);
        memcpy(&b, l->b1 + 8 * (p + 1), 8);
        if (a < l->lo || b < a || b > l->hi)
            return fail(c, ERR_SCHEMA, path, -1, "bad Arrow binary offsets (%lld, %lld) outside (%lld, %lld)",
                        (long long)a, (long long)b, (long long)l->lo, (long long)l->hi);
        *ptr = l->b2 + a;
        *len = b - a;
        return 0;
    }
    {
        /* Binary view: length, then 12 inline bytes or (prefix, buffer index, offset). */
        const uint8_t *v = l->b1 + 16 * p;
        int32_t n, bi, off;
        memcpy(&n, v, 4);
        if (n < 0) return fail(c, ERR_SCHEMA, path, -1, "bad Arrow binary view");
        if (n <= 12) {
            *ptr = v + 4;
            *len = n;
            return 0;
        }
        memcpy(&bi, v + 8, 4);
        memcpy(&off, v + 12, 4);
        if (bi < 0 || bi >= l->nvbufs || off < 0 || (int64_t)off + n > l->vsizes[bi])
            return fail(c, ERR_SCHEMA, path, -1, "bad Arrow binary view");
        *ptr = l->vbufs[bi] + off;
        *len = n;
        return 0;
    }
}

static int is_binary_format(const char *f) {
    return strcmp(f, "z") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "u") == 0 || strcmp(f, "U") == 0 ||
           strcmp(f, "vz") == 0 || strcmp(f, "vu") == 0;
}

/* Fill the values part of a leaf: kind LK_OFF32/64/VIEW from a binary format, or `kind`/`width`. */
static int leaf_values(Ctx *c, Leaf *l, const char *fmt, const struct ArrowArray *a, int kind, int width,
                       const char *path) {
    l->kind = kind;
    l->width = width;
    if (kind == LK_OFF32 || kind == LK_OFF64 || kind == LK_VIEW) {
        if (fmt[0] == 'v') {
            int64_t nv = a->n_buffers - 3;
            if (a->n_buffers < 3) return fail(c, ERR_SCHEMA, path, -1, "Arrow view array without buffers");
            l->kind = LK_VIEW;
            l->b1 = (const uint8_t *)a->buffers[1];
            l->vbufs = (const uint8_t *const *)(a->buffers + 2);
            l->nvbufs = nv;
            l->vsizes = (const int64_t *)a->buffers[a->n_buffers - 1];
            if (nv > 0 && l->vsizes == NULL)
                return fail(c, ERR_SCHEMA, path, -1, "Arrow view array without sizes");
        } else {
            l->kind = (fmt[0] == 'Z' || fmt[0] == 'U') ? LK_OFF64 : LK_OFF32;
            if (a->n_buffers != 3)
                return fail(c, ERR_SCHEMA, path, -1, "Arrow binary array without 3 buffers");
            l->b1 = (const uint8_t *)a->buffers[1];
            l->b2 = (const uint8_t *)a->buffers[2];
            if (l->b2 == NULL) l->b2 = (const uint8_t *)""; /* all values empty */
        }
        if (l->b1 == NULL && a->length > 0)
            return fail(c, ERR_SCHEMA, path, -1, "Arrow array without values");
        if (l->kind != LK_VIEW && a->length > 0) { /* an empty array may have no offsets */
            if (l->kind == LK_OFF64) {
                memcpy(&l->lo, l->b1 + 8 * a->offset, 8);
                memcpy(&l->hi, l->b1 + 8 * (a->offset + a->length), 8);
            } else {
                int32_t x, y;
                memcpy(&x, l->b1 + 4 * a->offset, 4);
                memcpy(&y, l->b1 + 4 * (a->offset + a->length), 4);
                l->lo = x;
                l->hi = y;
            }
            if (l->lo < 0 || l->hi < l->lo)
                return fail(c, ERR_SCHEMA, path, -1, "bad Arrow binary offsets: first %lld, last %lld",
                            (long long)l->lo, (long long)l->hi);
        }
        return 0;
    }
    if (a->n_buffers != 2) return fail(c, ERR_SCHEMA, path, -1, "Arrow array without 2 buffers");
    l->b1 = (const uint8_t *)a->buffers[1];
    if (l->b1 == NULL && a->length > 0) return fail(c, ERR_SCHEMA, path, -1, "Arrow array without values");
    return 0;
}

static const uint8_t *validity_of(const struct ArrowArray *a) {
    if (a->null_count == 0 || a->n_buffers < 1) return NULL;
    return (const uint8_t *)a->buffers[0];
}

/* A leaf over (schema s, array a) whose values have `fmt_kind`; `need` is the logical length the
 * parent indexes (checked against the array). */
static int leaf_init(Ctx *c, Leaf *l, const struct ArrowSchema *s, const struct ArrowArray *a, int kind,
                     int width, int64_t need, const char *path) {
    memset(l, 0, sizeof *l);
    if (a->length < need) return fail(c, ERR_SCHEMA, path, -1, "Arrow child shorter than its parent");
    l->off = a->offset;
    if (s->dictionary != NULL) {
        const char *f = s->format;
        const struct ArrowArray *d = a->dictionary;
        if (d == NULL || s->dictionary->dictionary != NULL)
            return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow dictionary");
        l->dict = 1;
        l->index_signed = (f[0] >= 'a' && f[0] <= 'z');
        switch (f[0]) {
        case 'c': case 'C': l->index_width = 1; break;
        case 's': case 'S': l->index_width = 2; break;
        case 'i': case 'I': l->index_width = 4; break;
        case 'l': case 'L': l->index_width = 8; break;
        default: return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow dictionary index type %s", f);
        }
        if (f[1] != '\0' || a->n_buffers != 2 || (a->buffers[1] == NULL && a->length > 0))
            return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow dictionary index type %s", f);
        l->valid = validity_of(a);
        l->index = (const uint8_t *)a->buffers[1];
        l->dvalid = validity_of(d);
        l->doff = d->offset;
        l->dlen = d->length;
        return leaf_values(c, l, s->dictionary->format, d, kind, width, path);
    }
    l->valid = validity_of(a);
    return leaf_values(c, l, s->format, a, kind, width, path);
}

/* ---- building the schema tree -------------------------------------------------------------- */
static char *join_path(Ctx *c, const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (p == NULL) {
        nomem(c);
        return NULL;
    }
    if (la == 0) {
        memcpy(p, b, lb + 1);
    } else {
        memcpy(p, a, la);
        p[la] = '.';
        memcpy(p + la + 1, b, lb + 1);
    }
    return p;
}

static Level *new_level(Ctx *c) {
    Level *L;
    if (c->nlevels == c->cap_levels &&
        grow(c, (void **)&c->levels, &c->cap_levels, c->nlevels + 1, sizeof(Level *)) < 0)
        return NULL;
    L = calloc(1, sizeof(Level));
    if (L == NULL) {
        nomem(c);
        return NULL;
    }
    L->offset_size_guess = 1;
    c->levels[c->nlevels++] = L;
    return L;
}

static void free_levels(Ctx *c) {
    for (int64_t i = 0; i < c->nlevels; i++) {
        Level *L = c->levels[i];
        Py_XDECREF(L->key);
        free(L->path);
        free(L->value_path);
        free(L->typed_path);
        free(L->fields);
        free(L->ids);
        free(L->probes);
        free(L);
    }
    free(c->levels);
    c->levels = NULL;
    c->nlevels = c->cap_levels = 0;
}

static int name_cmp(const uint8_t *a, size_t la, const uint8_t *b, size_t lb) {
    size_t n = la < lb ? la : lb;
    int r = n ? memcmp(a, b, n) : 0;
    if (r != 0) return r;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

static int field_order(const void *x, const void *y) {
    const Field *a = x, *b = y;
    return name_cmp(a->name, a->len, b->name, b->len);
}

static int build_level(Ctx *c, Level *L, const struct ArrowSchema *s, const struct ArrowArray *a, int role,
                       int depth);

/* child->key = parent->key + (step,), stealing `step`; nothing when keys are not used. */
static int child_key(Ctx *c, const Level *parent, Level *child, PyObject *step) {
    Py_ssize_t n;
    PyObject *key;
    if (parent->key == NULL || step == NULL) {
        Py_XDECREF(step);
        if (parent->key != NULL) {
            PyErr_Clear();
            return fail(c, ERR_UNSUPPORTED, child->path, -1, "a field name that is not UTF-8");
        }
        return 0;
    }
    n = PyTuple_GET_SIZE(parent->key);
    key = PyTuple_New(n + 1);
    if (key == NULL) {
        Py_DECREF(step);
        return fail(c, ERR_PYTHON, child->path, -1, "cannot build a path key");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(parent->key, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(key, i, item);
    }
    PyTuple_SET_ITEM(key, n, step);
    child->key = key;
    return 0;
}

/* Make P write the Variant type the layout names (`want`), as vpush.codec.unshred does, where
 * that is a relabelling of the Arrow values; anything that needs a conversion (an int32 column
 * under an INT8 layout, nanoseconds under microseconds) is left to the reference. */
static int follow_layout(Ctx *c, Primitive *P, long want, const char *fmt, const char *path) {
    int have = P->ptype;
#define IS_DECIMAL(t) ((t) == PT_DECIMAL4 || (t) == PT_DECIMAL8 || (t) == PT_DECIMAL16)
#define PAIR(t, x, y) ((t) == (x) || (t) == (y))
    if (want == have || (IS_DECIMAL(have) && IS_DECIMAL(want)) ||
        /* the time zone is the layout's: only the unit matters */
        (PAIR(have, PT_TIMESTAMP, PT_TIMESTAMP_NTZ) && PAIR(want, PT_TIMESTAMP, PT_TIMESTAMP_NTZ)) ||
        (PAIR(have, PT_TIMESTAMP_NANOS, PT_TIMESTAMP_NTZ_NANOS) &&
         PAIR(want, PT_TIMESTAMP_NANOS, PT_TIMESTAMP_NTZ_NANOS)) ||
        (PAIR(have, PT_STRING, PT_BINARY) && PAIR(want, PT_STRING, PT_BINARY))) {
        P->ptype = (int)want;
        return 0;
    }
#undef IS_DECIMAL
#undef PAIR
    return fail(c, ERR_UNSUPPORTED, path, -1,
                "typed_value is Arrow %s but the layout names Variant primitive %ld: the reference converts it",
                fmt, want);
}

/* Parse "d:P,S[,BITS]". */
static int parse_decimal(const char *f, int *precision, int *scale, int *bits) {
    char *end;
    long p, s, b = 128;
    if (strncmp(f, "d:", 2) != 0) return -1;
    p = strtol(f + 2, &end, 10);
    if (*end != ',') return -1;
    s = strtol(end + 1, &end, 10);
    if (*end == ',') b = strtol(end + 1, &end, 10);
    if (*end != '\0') return -1;
    *precision = (int)p;
    *scale = (int)s;
    *bits = (int)b;
    return 0;
}

static int build_primitive(Ctx *c, Level *L, const struct ArrowSchema *s, const struct ArrowArray *a,
                           int64_t need) {
    const char *f = s->dictionary != NULL ? s->dictionary->format : s->format;
    const char *path = L->typed_path;
    Primitive *P = &L->prim;
    int kind = LK_FIXED, width = 0;
    PyObject *layout_type = NULL; /* borrowed: the Variant type id the layout names, if any */
    int named;
    L->typed = T_PRIMITIVE;
    if (c->overrides != NULL && L->key != NULL) {
        layout_type = PyDict_GetItemWithError(c->overrides, L->key);
        if (layout_type == NULL && PyErr_Occurred()) return fail(c, ERR_PYTHON, path, -1, "bad primitive_types");
    }
    named = layout_type != NULL;
    if (strcmp(f, "b") == 0) {
        kind = LK_BOOL;
        P->ptype = PT_TRUE;
    } else if (strcmp(f, "c") == 0) {
        P->ptype = PT_INT8, width = 1;
    } else if (strcmp(f, "s") == 0) {
        P->ptype = PT_INT16, width = 2;
    } else if (strcmp(f, "i") == 0) {
        P->ptype = PT_INT32, width = 4;
    } else if (strcmp(f, "l") == 0) {
        P->ptype = PT_INT64, width = 8;
    } else if (strcmp(f, "f") == 0) {
        P->ptype = PT_FLOAT, width = 4;
    } else if (strcmp(f, "g") == 0) {
        P->ptype = PT_DOUBLE, width = 8;
    } else if (strcmp(f, "tdD") == 0) {
        P->ptype = PT_DATE, width = 4;
    } else if (strcmp(f, "ttu") == 0) {
        P->ptype = PT_TIME, width = 8;
    } else if (strncmp(f, "tsu:", 4) == 0) {
        P->ptype = f[4] != '\0' ? PT_TIMESTAMP : PT_TIMESTAMP_NTZ, width = 8;
    } else if (strncmp(f, "tsn:", 4) == 0) {
        P->ptype = f[4] != '\0' ? PT_TIMESTAMP_NANOS : PT_TIMESTAMP_NTZ_NANOS, width = 8;
    } else if (strcmp(f, "w:16") == 0) {
        P->ptype = PT_UUID, width = 16;
    } else if (strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "vu") == 0) {
        P->ptype = PT_STRING, kind = LK_OFF32;
    } else if (strcmp(f, "z") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "vz") == 0) {
        P->ptype = PT_BINARY, kind = LK_OFF32;
    } else if (f[0] == 'd' && f[1] == ':') {
        int precision, scale, bits;
        if (parse_decimal(f, &precision, &scale, &bits) < 0)
            return fail(c, ERR_SCHEMA, path, -1, "unreadable Arrow decimal format %s", f);
        if (bits != 32 && bits != 64 && bits != 128 && bits != 256)
            return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow decimal width %d", bits);
        if (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale < 0 || scale > precision)
            return fail(c, ERR_SCHEMA, path, -1,
                        "unsupported shredded value type decimal(%d, %d): the precision must be 1 to 38 "
                        "and the scale 0 to the precision",
                        precision, scale);
        P->ptype = precision <= 9 ? PT_DECIMAL4 : precision <= 18 ? PT_DECIMAL8 : PT_DECIMAL16;
        P->in_width = bits / 8;
        P->scale = scale;
        width = P->in_width;
    } else if (strcmp(f, "tdm") == 0 || strcmp(f, "ttn") == 0 || strcmp(f, "n") == 0 || named) {
        /* With a layout, the reference may convert it (milliseconds to a TIMESTAMP, float16). */
        return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow type %s for typed_value", f);
    } else {
        return fail(c, ERR_SCHEMA, path, -1,
                    "unsupported shredded value type (Arrow format %s): it has no Variant equivalent", f);
    }
    {
        /* The layout names the Variant type, not the Arrow type: a Parquet INT64 decimal is a
         * decimal8 even when its precision fits decimal4 (vpush.codec.layout.primitive_layout). */
        PyObject *o = layout_type;
        if (o != NULL) {
            long want = PyLong_AsLong(o);
            if (want == -1 && PyErr_Occurred()) return fail(c, ERR_PYTHON, path, -1, "bad primitive_types");
            if (follow_layout(c, P, want, f, path) < 0) return -1;
        }
    }
    P->out_width = P->ptype == PT_DECIMAL4 ? 4 : P->ptype == PT_DECIMAL8 ? 8 : 16;
    return leaf_init(c, &P->leaf, s, a, kind, width, need, path);
}

static int build_typed(Ctx *c, Level *L, const struct ArrowSchema *s, const struct ArrowArray *a,
                       int64_t need, int depth) {
    const char *f = s->format;
    const char *path = L->typed_path;
    if (s->dictionary == NULL && strcmp(f, "+s") == 0) {
        int64_t n = s->n_children;
        if (a->n_children != n || a->length < need)
            return fail(c, ERR_SCHEMA, path, -1, "Arrow struct does not match its schema");
        L->typed = T_OBJECT;
        L->tvalid = validity_of(a);
        L->toff = a->offset;
        L->nfields = n;
        L->fields = calloc(n ? (size_t)n : 1, sizeof(Field));
        L->ids = calloc((n ? (size_t)n : 1) * META_SLOTS, sizeof(uint32_t));
        L->probes = calloc(n ? (size_t)n : 1, sizeof(Probe));
        if (L->fields == NULL || L->ids == NULL || L->probes == NULL) return nomem(c);
        for (int64_t i = 0; i < n; i++) {
            const struct ArrowSchema *cs = s->children[i];
            Level *F = new_level(c);
            const char *name = cs->name != NULL ? cs->name : "";
            if (F == NULL) return -1;
            F->path = join_path(c, path, name);
            if (F->path == NULL) return -1;
            if (c->overrides != NULL &&
                child_key(c, L, F, PyUnicode_DecodeUTF8(name, (Py_ssize_t)strlen(name), "strict")) < 0)
                return -1;
            L->fields[i].name = (const uint8_t *)name;
            L->fields[i].len = strlen(name);
            L->fields[i].level = F;
            if (cs->dictionary != NULL || strcmp(cs->format, "+s") != 0)
                return fail(c, ERR_SCHEMA, F->path, -1,
                            "shredded field '%s' must be a group of value and typed_value", name);
            if (build_level(c, F, cs, a->children[i], ROLE_FIELD, depth + 1) < 0) return -1;
            if (a->children[i]->length < a->offset + need)
                return fail(c, ERR_SCHEMA, F->path, -1, "Arrow child shorter than its parent");
        }
        qsort(L->fields, (size_t)n, sizeof(Field), field_order);
        for (int64_t i = 1; i < n; i++)
            if (field_order(&L->fields[i - 1], &L->fields[i]) == 0)
                return fail(c, ERR_SCHEMA, path, -1, "shredded field '%s' appears twice",
                            (const char *)L->fields[i].name);
        return 0;
    }
    if (s->dictionary == NULL && (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0)) {
        const struct ArrowSchema *es;
        const struct ArrowArray *ea;
        Level *E;
        char *list_path;
        if (s->n_children != 1 || a->n_children != 1 || a->n_buffers != 2 || a->length < need)
            return fail(c, ERR_SCHEMA, path, -1, "Arrow list does not match its schema");
        es = s->children[0];
        ea = a->children[0];
        L->typed = T_ARRAY;
        L->tvalid = validity_of(a);
        L->toff = a->offset;
        L->large_list = f[1] == 'L';
        L->list_offsets = (const uint8_t *)a->buffers[1];
        L->elem_len = ea->length;
        if (L->list_offsets == NULL && a->length > 0)
            return fail(c, ERR_SCHEMA, path, -1, "Arrow list without offsets");
        E = new_level(c);
        if (E == NULL) return -1;
        list_path = join_path(c, path, "list");
        if (list_path == NULL) return -1;
        E->path = join_path(c, list_path, es->name != NULL ? es->name : "element");
        free(list_path);
        if (E->path == NULL) return -1;
        if (c->overrides != NULL) {
            Py_INCREF(Py_None);
            if (child_key(c, L, E, Py_None) < 0) return -1;
        }
        L->element = E;
        if (es->dictionary != NULL || strcmp(es->format, "+s") != 0)
            return fail(c, ERR_SCHEMA, E->path, -1,
                        "the list element must be a group of value and typed_value");
        return build_level(c, E, es, ea, ROLE_ELEMENT, depth + 1);
    }
    if (f[0] == '+')
        return fail(c, ERR_UNSUPPORTED, path, -1, "unsupported Arrow nested type %s for typed_value", f);
    return build_primitive(c, L, s, a, need);
}

/* A (value, typed_value) group: L->path is set; `a` is its struct array. */
static int build_level(Ctx *c, Level *L, const struct ArrowSchema *s, const struct ArrowArray *a, int role,
                       int depth) {
    const struct ArrowSchema *vs = NULL, *ts = NULL;
    const struct ArrowArray *va = NULL, *ta = NULL;
    int64_t need = a->offset + a->length;
    if (depth > MAX_LEVEL_DEPTH)
        return fail(c, ERR_UNSUPPORTED, L->path, -1, "shredding schema nested deeper than %d levels",
                    MAX_LEVEL_DEPTH);
    if (s->n_children != a->n_children)
        return fail(c, ERR_SCHEMA, L->path, -1, "Arrow struct does not match its schema");
    L->gvalid = validity_of(a);
    L->goff = a->offset;
    L->value_path = join_path(c, L->path, "value");
    L->typed_path = join_path(c, L->path, "typed_value");
    if (L->value_path == NULL || L->typed_path == NULL) return -1;
    for (int64_t i = 0; i < s->n_children; i++) {
        const struct ArrowSchema *cs = s->children[i];
        const char *name = cs->name != NULL ? cs->name : "";
        if ((strcmp(name, "value") == 0 && vs != NULL) || (strcmp(name, "typed_value") == 0 && ts != NULL))
            return fail(c, ERR_SCHEMA, L->path, -1, "field '%s' appears twice", name);
        if (strcmp(name, "value") == 0) {
            vs = cs;
            va = a->children[i];
        } else if (strcmp(name, "typed_value") == 0) {
            ts = cs;
            ta = a->children[i];
        } else if (role == ROLE_TOP && strcmp(name, "metadata") == 0) {
            const char *mf = cs->dictionary != NULL ? cs->dictionary->format : cs->format;
            if (c->has_metadata) return fail(c, ERR_SCHEMA, L->path, -1, "field 'metadata' appears twice");
            if (!is_binary_format(mf))
                return fail(c, ERR_SCHEMA,
                            "metadata", -1, "metadata must be binary, not Arrow format %s", mf);
            if (leaf_init(c, &c->metadata, cs, a->children[i], LK_OFF32, 0, need, "metadata") < 0) return -1;
            c->has_metadata = 1;
        } else if (name[0] == '_') {
            continue; /* Delta's convention: names starting with '_' are extensions */
        } else if (role == ROLE_TOP && (strcmp(name, "untyped_value") == 0 || strcmp(name, "object") == 0 ||
                                        strcmp(name, "array") == 0)) {
            return fail(c, ERR_UNSUPPORTED, L->path, -1, "the draft layout (%s) is rebuilt in Python", name);
        } else {
            return fail(c, ERR_SCHEMA, L->path, -1,
                        "unexpected field '%s': a Variant group holds only metadata, value and typed_value",
                        name);
        }
    }
    if (role == ROLE_TOP && !c->has_metadata)
        return fail(c, ERR_SCHEMA, L->path, -1, "a Variant group needs a metadata field");
    if (vs == NULL && ts == NULL)
        return fail(c, ERR_SCHEMA, L->path, -1, "a Variant level needs a value or a typed_value field");
    if (vs != NULL) {
        const char *vf = vs->dictionary != NULL ? vs->dictionary->format : vs->format;
        if (!is_binary_format(vf))
            return fail(c, ERR_SCHEMA, L->value_path, -1, "value must be binary, not Arrow format %s", vf);
        L->has_value = 1;
        if (leaf_init(c, &L->value, vs, va, LK_OFF32, 0, need, L->value_path) < 0) return -1;
    }
    if (ts != NULL) return build_typed(c, L, ts, ta, need, depth);
    L->typed = T_NONE;
    return 0;
}

/* ---- metadata ----------------------------------------------------------------------------- */
/* Strict UTF-8, as Python's decoder: no overlong forms, no surrogates, nothing past U+10FFFF. */
static int utf8_valid(const uint8_t *s, int64_t n) {
    int64_t i = 0;
    while (i < n) {
        uint8_t b = s[i];
        if (b < 0x80) {
            uint64_t w;
            i++;
            /* ASCII runs, 8 bytes at a time */
            while (i + 8 <= n && (memcpy(&w, s + i, 8), (w & 0x8080808080808080ULL) == 0)) i += 8;
        } else if (b >= 0xC2 && b <= 0xDF) {
            if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
        } else if (b >= 0xE0 && b <= 0xEF) {
            uint8_t b1;
            if (i + 2 >= n) return 0;
            b1 = s[i + 1];
            if ((b1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return 0;
            if (b == 0xE0 && b1 < 0xA0) return 0;
            if (b == 0xED && b1 >= 0xA0) return 0;
            i += 3;
        } else if (b >= 0xF0 && b <= 0xF4) {
            uint8_t b1;
            if (i + 3 >= n) return 0;
            b1 = s[i + 1];
            if ((b1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80) return 0;
            if (b == 0xF0 && b1 < 0x90) return 0;
            if (b == 0xF4 && b1 >= 0x90) return 0;
            i += 4;
        } else {
            return 0;
        }
    }
    return 1;
}

static inline uint64_t meta_offset(const Meta *m, uint64_t i) {
    return read_le(m->data + 1 + (uint64_t)m->osz * (i + 1), m->osz);
}

static inline void meta_key(const Meta *m, uint64_t i, const uint8_t **name, size_t *len) {
    uint64_t a = meta_offset(m, i), b = meta_offset(m, i + 1);
    *name = m->data + m->bytes_start + a;
    *len = (size_t)(b - a);
}

/* Check metadata bytes as VariantMetadata(data) and its `keys` do, filling `m`. */
static int parse_metadata(Ctx *c, Meta *m, const uint8_t *d, int64_t len) {
    uint8_t h;
    int osz;
    uint64_t dsize, table, bytes_start, last, prev;
    if (len < 1) return fail(c, ERR_MALFORMED, "metadata", 0, "truncated metadata header");
    h = d[0];
    if ((h & 0x0F) != 1)
        return fail(c, ERR_MALFORMED,
                    "metadata", 0, "unsupported metadata version %d (expected 1)", h & 0x0F);
    if (h & 0x20)
        return fail(c, ERR_MALFORMED, "metadata", 0, "metadata header bit 5 is reserved and must be 0");
    osz = (h >> 6) + 1;
    if (1 + osz > len) return fail(c, ERR_MALFORMED, "metadata", 1, "truncated metadata dictionary_size");
    dsize = read_le(d + 1, osz);
    table = (dsize + 1) * (uint64_t)osz;
    if (table > (uint64_t)len - 1 - osz)
        return fail(c, ERR_MALFORMED, "metadata", 1 + osz, "truncated metadata offsets (%llu strings)",
                    (unsigned long long)dsize);
    bytes_start = 1 + osz + table;
    m->data = d;
    m->len = len;
    m->osz = osz;
    m->dsize = dsize;
    m->bytes_start = (int64_t)bytes_start;
    last = meta_offset(m, dsize);
    if (last > (uint64_t)len - bytes_start)
        return fail(c, ERR_MALFORMED, "metadata", (int64_t)bytes_start, "truncated metadata strings");
    if (bytes_start + last != (uint64_t)len)
        return fail(c, ERR_MALFORMED, "metadata", (int64_t)(bytes_start + last),
                    "metadata is %llu bytes but the buffer holds %lld",
                    (unsigned long long)(bytes_start + last),
                    (long long)len);
    prev = meta_offset(m, 0);
    if (prev != 0)
        return fail(c, ERR_MALFORMED, "metadata", 1 + osz, "the first metadata offset must be 0");
    m->sorted = 1;
    for (uint64_t i = 0; i < dsize; i++) {
        uint64_t end = meta_offset(m, i + 1);
        if (end < prev)
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(1 + osz * (i + 2)),
                        "metadata offset %llu is before the one preceding it", (unsigned long long)(i + 1));
        if (end > last)
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(1 + osz * (i + 2)),
                        "truncated metadata string %llu: it ends past the strings", (unsigned long long)i);
        /* prev <= end <= last, and bytes_start + last is the buffer's length */
        if (!utf8_valid(d + bytes_start + prev, (int64_t)(end - prev)))
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(bytes_start + prev),
                        "metadata string %llu is not valid UTF-8", (unsigned long long)i);
        if (i > 0 && m->sorted) {
            const uint8_t *pn;
            size_t pl;
            meta_key(m, i - 1, &pn, &pl);
            if (name_cmp(pn, pl, d + bytes_start + prev, (size_t)(end - prev)) >= 0) {
                /* sorted_strings promises unique strings in ascending byte order (VariantMetadata
                 * .validate); readers may binary-search them. */
                if (h & 0x10)
                    return fail(c, ERR_MALFORMED, "metadata", (int64_t)(bytes_start + prev),
                                "metadata is marked sorted but string %llu is not after string %llu",
                                (unsigned long long)i, (unsigned long long)(i - 1));
                m->sorted = 0;
            }
        }
        prev = end;
    }
    m->gen = ++c->gens;
    return 0;
}

static inline int same_bytes(const Meta *m, const uint8_t *d, int64_t len) {
    return m->len == len && (m->data == d || memcmp(m->data, d, (size_t)len) == 0);
}

/* Point c->m at the current row's dictionary: a remembered one, or a newly parsed one. */
static int ensure_metadata(Ctx *c) {
    Meta parsed, *slot;
    if (c->row_meta_checked) return 0;
    if (c->m == NULL || !same_bytes(c->m, c->row_meta, c->row_meta_len)) {
        c->m = NULL;
        for (int i = 0; i < c->nslots; i++) {
            if (same_bytes(&c->slots[i], c->row_meta, c->row_meta_len)) {
                c->m = &c->slots[i];
                break;
            }
        }
        if (c->m == NULL) {
            if (parse_metadata(c, &parsed, c->row_meta, c->row_meta_len) < 0) return -1;
            if (c->nslots < META_SLOTS) {
                slot = &c->slots[c->nslots++];
            } else {
                slot = &c->slots[c->victim];
                c->victim = (c->victim + 1) % META_SLOTS;
            }
            *slot = parsed;
            c->m = slot;
        }
    }
    c->row_meta_checked = 1;
    return 0;
}

/* The first id of `name` in the dictionary, or ID_MISSING. */
static uint32_t meta_find(const Meta *m, const uint8_t *name, size_t len) {
    const uint8_t *k;
    size_t kl;
    if (m->sorted) {
        uint64_t lo = 0, hi = m->dsize;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            int r;
            meta_key(m, mid, &k, &kl);
            r = name_cmp(k, kl, name, len);
            if (r == 0) return (uint32_t)mid;
            if (r < 0) lo = mid + 1;
            else hi = mid;
        }
        return ID_MISSING;
    }
    for (uint64_t i = 0; i < m->dsize; i++) {
        meta_key(m, i, &k, &kl);
        if (kl == len && (len == 0 || memcmp(k, name, len) == 0)) return (uint32_t)i;
    }
    return ID_MISSING;
}

/* The ids of L's shredded names in the current row's dictionary. */
static const uint32_t *ensure_ids(Ctx *c, Level *L) {
    int slot;
    uint32_t *ids;
    if (ensure_metadata(c) < 0) return NULL;
    slot = (int)(c->m - c->slots);
    ids = L->ids + (size_t)slot * (size_t)L->nfields;
    if (L->ids_gen[slot] != c->m->gen) {
        for (int64_t i = 0; i < L->nfields; i++)
            ids[i] = meta_find(c->m, L->fields[i].name, L->fields[i].len);
        L->ids_gen[slot] = c->m->gen;
    }
    return ids;
}

/* ---- residual values ---------------------------------------------------------------------- */
/* The size of the value at pos, which must end by `end` (value_size in vpush.codec.value). */
static int value_size(Ctx *c, const char *path, const uint8_t *buf, int64_t pos, int64_t end, int64_t *size) {
    uint8_t b;
    int basic, h;
    int64_t n;
    if (pos >= end) return fail(c, ERR_MALFORMED, path, pos, "truncated value: no header byte");
    b = buf[pos];
    basic = b & 0x03;
    h = b >> 2;
    if (basic == BASIC_SHORT_STRING) {
        n = 1 + h;
    } else if (basic == BASIC_PRIMITIVE) {
        if (h > PT_LAST) return fail(c, ERR_MALFORMED, path, pos, "unknown primitive type id %d", h);
        if (PRIMITIVE_FIXED_SIZE[h] < 0) {
            if (end - pos < 5)
                return fail(c, ERR_MALFORMED, path, pos + 1, "truncated string length");
            n = 5 + (int64_t)read_le(buf + pos + 1, 4);
        } else {
            n = 1 + PRIMITIVE_FIXED_SIZE[h];
        }
    } else {
        int is_object = basic == BASIC_OBJECT;
        int osz = (h & 0x03) + 1;
        int isz = is_object ? ((h >> 2) & 0x03) + 1 : 0;
        int is_large = is_object ? (h >> 4) & 1 : (h >> 2) & 1;
        int nsz = is_large ? 4 : 1;
        uint64_t count, table, offsets_start, last;
        if (!is_object && (h >> 3) != 0)
            return fail(c, ERR_MALFORMED, path, pos, "array header bits 5-7 are reserved and must be 0");
        if (end - pos < 1 + nsz)
            return fail(c, ERR_MALFORMED, path, pos + 1, "truncated %s num_elements",
                        is_object ? "object" : "array");
        count = read_le(buf + pos + 1, nsz);
        table = count * (uint64_t)isz + (count + 1) * (uint64_t)osz;
        if (table > (uint64_t)(end - pos - 1 - nsz))
            return fail(c, ERR_MALFORMED, path, pos + 1 + nsz,
                        "truncated %s: %llu elements need a %llu-byte table",
                        is_object ? "object" : "array", (unsigned long long)count,
                        (unsigned long long)table);
        offsets_start = (uint64_t)pos + 1 + nsz + count * isz;
        last = read_le(buf + offsets_start + count * osz, osz);
        n = (int64_t)(1 + nsz + table + last);
    }
    if (n > end - pos)
        return fail(c, ERR_MALFORMED, path, pos,
                    "truncated value: needs %lld bytes, %lld available",
                    (long long)n, (long long)(end - pos));
    *size = n;
    return 0;
}

static int entry_order(const void *x, const void *y) {
    const Entry *a = x, *b = y;
    return name_cmp(a->name, a->len, b->name, b->len);
}

/* Push the fields of a partially shredded object's value onto the entry stack, sorted by name. */
static int residual_fields(Ctx *c, Level *L, const uint8_t *buf, int64_t len) {
    const char *path = L->value_path;
    uint8_t b;
    int h, osz, isz, nsz, sorted = 1;
    uint64_t count, table, ids_start, offsets_start, data_start, last;
    int64_t child_end, e0 = c->ent_top;
    if (len < 1) return fail(c, ERR_MALFORMED, path, 0, "truncated value: no header byte");
    b = buf[0];
    if ((b & 0x03) != BASIC_OBJECT)
        return fail(c, ERR_SHREDDING, path, -1,
                    "value is not an object but typed_value holds shredded fields: a partially shredded "
                    "value must be an object");
    h = b >> 2;
    osz = (h & 0x03) + 1;
    isz = ((h >> 2) & 0x03) + 1;
    nsz = ((h >> 4) & 1) ? 4 : 1;
    if (len < 1 + nsz) return fail(c, ERR_MALFORMED, path, 1, "truncated object num_elements");
    count = read_le(buf + 1, nsz);
    ids_start = 1 + nsz;
    table = count * (uint64_t)isz + (count + 1) * (uint64_t)osz;
    if (table > (uint64_t)len - ids_start)
        return fail(c, ERR_MALFORMED, path, (int64_t)ids_start,
                    "truncated object: %llu elements need a %llu-byte table",
                    (unsigned long long)count, (unsigned long long)table);
    offsets_start = ids_start + count * isz;
    data_start = offsets_start + (count + 1) * osz;
    last = read_le(buf + offsets_start + count * osz, osz);
    if ((uint64_t)len - data_start != last)
        return fail(c, ERR_MALFORMED, path, 0, "value is %llu bytes but the buffer holds %lld",
                    (unsigned long long)(data_start + last), (long long)len);
    child_end = len;
    /* count <= len here (the table fits), so the stack grows by at most the value's size */
    if (c->ent_top + (int64_t)count > c->ent_cap &&
        grow(c, (void **)&c->ent, &c->ent_cap, c->ent_top + (int64_t)count, sizeof(Entry)) < 0)
        return -1;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t fid = read_le(buf + ids_start + i * isz, isz);
        uint64_t off = read_le(buf + offsets_start + i * osz, osz);
        Entry *e = &c->ent[c->ent_top];
        const uint8_t *name;
        size_t nl;
        int64_t size = 0;
        if (fid >= c->m->dsize)
            return fail(c, ERR_MALFORMED, path, (int64_t)(ids_start + i * isz),
                        "field id %llu is outside the metadata dictionary of %llu strings",
                        (unsigned long long)fid, (unsigned long long)c->m->dsize);
        if (off >= last)
            return fail(c, ERR_MALFORMED, path, (int64_t)(offsets_start + i * osz),
                        "element %llu starts at offset %llu, past the last offset %llu",
                        (unsigned long long)i, (unsigned long long)off, (unsigned long long)last);
        if (value_size(c, path, buf, (int64_t)(data_start + off), child_end, &size) < 0) return -1;
        meta_key(c->m, fid, &name, &nl);
        e->name = name;
        e->len = (uint32_t)nl;
        e->id = (uint32_t)fid;
        e->src = buf + data_start + off;
        e->size = size;
        if (c->ent_top > e0 && sorted && entry_order(&c->ent[c->ent_top - 1], e) >= 0) sorted = 0;
        c->ent_top++;
    }
    if (!sorted) qsort(c->ent + e0, (size_t)(c->ent_top - e0), sizeof(Entry), entry_order);
    for (int64_t i = e0 + 1; i < c->ent_top; i++)
        if (entry_order(&c->ent[i - 1], &c->ent[i]) == 0)
            return fail(c, ERR_MALFORMED, path, -1, "duplicate field name '%.*s' in object",
                        (int)c->ent[i].len, (const char *)c->ent[i].name);
    return 0;
}

/* ---- writing ------------------------------------------------------------------------------ */
/* A container is written header first: its element count and largest field id are known before
 * its children are, but its offset size depends on their total size. The header's room is
 * reserved with the offset size this level used last time, and the children are moved only when
 * the guess was wrong (rarely: values of one column have similar sizes). */
static inline int64_t header_size(int64_t n, int isz, int osz) {
    return 1 + (n > U8_MAX_FIELDS ? 4 : 1) + n * isz + (n + 1) * osz;
}

static int open_container(Ctx *c, int64_t n, int isz, int osz_guess, int64_t *start) {
    int64_t hsize = header_size(n, isz, osz_guess);
    if (reserve(c, hsize) < 0) return -1;
    *start = c->out_len;
    c->out_len += hsize;
    return 0;
}

/* Write the header at `start` for the children on the kid stack from k0, written after a gap
 * sized for `osz_guess`. */
static int close_container(Ctx *c, Level *L, int64_t start, int64_t k0, int64_t n_opened, int is_object,
                           int isz) {
    int64_t n = c->kid_top - k0;
    int64_t gap = header_size(n, isz, L->offset_size_guess);
    int64_t total = c->out_len - start - gap;
    int osz, is_large = n > U8_MAX_FIELDS, nsz = is_large ? 4 : 1;
    int64_t hsize;
    uint8_t *p;
    if (n != n_opened) return fail(c, ERR_SCHEMA, L->path, -1, "internal error: %lld children, %lld expected",
                                   (long long)n, (long long)n_opened);
    if (total > MAX_BINARY_ARRAY_BYTES || n > (int64_t)UINT32_MAX)
        return fail(c, ERR_TOO_LARGE, "", -1, "a value of %lld bytes does not fit one Arrow binary array",
                    (long long)total);
    osz = int_size((uint64_t)total);
    hsize = header_size(n, isz, osz);
    if (hsize != gap) {
        if (hsize > gap && reserve(c, hsize - gap) < 0) return -1;
        if (total > 0) memmove(c->out + start + hsize, c->out + start + gap, (size_t)total);
        c->out_len += hsize - gap;
        L->offset_size_guess = osz;
    }
    p = c->out + start;
    p[0] = is_object ? (uint8_t)((((is_large << 4) | ((isz - 1) << 2) | (osz - 1)) << 2) | BASIC_OBJECT)
                     : (uint8_t)((((is_large << 2) | (osz - 1)) << 2) | BASIC_ARRAY);
    write_le(p + 1, (uint64_t)n, nsz);
    p += 1 + nsz;
    if (is_object) {
        if (isz == 1) {
            for (int64_t i = 0; i < n; i++) *p++ = (uint8_t)c->kid[k0 + i].id;
        } else {
            for (int64_t i = 0; i < n; i++, p += isz) write_le(p, c->kid[k0 + i].id, isz);
        }
    }
    if (osz == 1) {
        for (int64_t i = 0; i < n; i++) *p++ = (uint8_t)c->kid[k0 + i].pos;
        *p = (uint8_t)total;
    } else {
        for (int64_t i = 0; i < n; i++, p += osz) write_le(p, (uint64_t)c->kid[k0 + i].pos, osz);
        write_le(p, (uint64_t)total, osz);
    }
    c->kid_top = k0;
    return 0;
}

static int emit_level(Ctx *c, Level *L, int64_t j, int *present);
static int emit_probed(Ctx *c, Level *L, const Probe *pr);

/* Probe row j of level L (j indexes L's group array): 1 when present, 0 when missing, -1 on error. */
static inline int probe_level(Ctx *c, const Level *L, int64_t j, Probe *pr) {
    int64_t cj;
    pr->vp = -1;
    pr->tp = -1;
    if (L->gvalid != NULL && !bit(L->gvalid, L->goff + j)) return 0;
    cj = L->goff + j;
    if (L->has_value) {
        pr->vp = leaf_pos(&L->value, cj);
        if (pr->vp == -2) return fail(c, ERR_SCHEMA, L->value_path, -1, "bad Arrow dictionary index");
    }
    switch (L->typed) {
    case T_PRIMITIVE:
        pr->tp = leaf_pos(&L->prim.leaf, cj);
        if (pr->tp == -2) return fail(c, ERR_SCHEMA, L->typed_path, -1, "bad Arrow dictionary index");
        break;
    case T_OBJECT:
    case T_ARRAY:
        if (L->tvalid == NULL || bit(L->tvalid, L->toff + cj)) pr->tp = L->toff + cj;
        break;
    default:
        break;
    }
    return pr->vp >= 0 || pr->tp >= 0;
}

static int emit_primitive(Ctx *c, const Primitive *P, int64_t p, const char *path) {
    const Leaf *l = &P->leaf;
    uint8_t *o;
    switch (P->ptype) {
    case PT_TRUE:
        if (reserve(c, 1) < 0) return -1;
        c->out[c->out_len++] = (uint8_t)((bit(l->b1, p) ? PT_TRUE : PT_FALSE) << 2);
        return 0;
    case PT_STRING:
    case PT_BINARY: {
        const uint8_t *s;
        int64_t n;
        if (leaf_bytes(c, l, p, &s, &n, path) < 0) return -1;
        /* pyarrow does not check UTF-8 on read, and a Variant string must be UTF-8. */
        if (P->ptype == PT_STRING && !utf8_valid(s, n))
            return fail(c, ERR_SHREDDING, path, -1, "a string in typed_value is not valid UTF-8");
        if (n > MAX_BINARY_ARRAY_BYTES)
            return fail(c, ERR_TOO_LARGE, path, -1, "a %lld-byte string does not fit one Arrow binary array",
                        (long long)n);
        if (reserve(c, 5 + n) < 0) return -1;
        o = c->out + c->out_len;
        if (P->ptype == PT_STRING && n <= MAX_SHORT_STRING_BYTES) {
            *o++ = (uint8_t)((n << 2) | BASIC_SHORT_STRING);
        } else {
            *o++ = (uint8_t)(P->ptype << 2);
            write_le(o, (uint64_t)n, 4);
            o += 4;
        }
        if (n > 0) memcpy(o, s, (size_t)n);
        c->out_len = (o - c->out) + n;
        return 0;
    }
    case PT_DECIMAL4:
    case PT_DECIMAL8:
    case PT_DECIMAL16: {
        const uint8_t *src = l->b1 + (int64_t)P->in_width * p;
        int w = P->out_width, iw = P->in_width, fits = 1;
        uint8_t sign = (src[iw - 1] & 0x80) ? 0xFF : 0x00;
        if (reserve(c, 2 + 16) < 0) return -1;
        o = c->out + c->out_len;
        o[0] = (uint8_t)(P->ptype << 2);
        o[1] = (uint8_t)P->scale;
        if (w < 16) {
            /* pyarrow does not check a column's values against its declared precision: a
             * decimal4 or decimal8 must hold at most 9 or 18 digits. */
            uint64_t u = 0, magnitude;
            int low = iw < 8 ? iw : 8;
            memcpy(&u, src, (size_t)low);
            if (low < 8 && sign) u |= ~(uint64_t)0 << (8 * low);
            for (int i = 8; i < iw; i++) fits &= src[i] == ((u >> 63) ? 0xFF : 0x00);
            magnitude = (u >> 63) ? ~u + 1 : u; /* INT64_MIN stays 2**63: too big, as it should */
            fits &= magnitude <= (w == 4 ? DECIMAL4_MAX_UNSCALED : DECIMAL8_MAX_UNSCALED);
            if (!fits)
                return fail(c, ERR_SHREDDING, path, -1,
                            "a decimal in typed_value has more digits than decimal%d holds",
                            w);
            write_le(o + 2, u, w);
        } else {
            /* A decimal256 column: the value must fit 16 bytes. */
            for (int i = 16; i < iw; i++) fits &= src[i] == ((src[15] & 0x80) ? 0xFF : 0x00);
            if (iw >= 16) {
                /* ... and hold at most 38 digits, as a decimal16 must */
                unsigned __int128 u, magnitude;
                memcpy(&u, src, 16);
                magnitude = (u >> 127) ? ~u + 1 : u;
                fits &= magnitude <= DECIMAL16_MAX_UNSCALED;
            }
            if (!fits)
                return fail(c, ERR_SHREDDING, path, -1,
                            "a decimal in typed_value has more digits than decimal16 holds");
            memcpy(o + 2, src, (size_t)(iw < 16 ? iw : 16));
            if (iw < 16) memset(o + 2 + iw, sign, (size_t)(16 - iw));
        }
        c->out_len += 2 + w;
        return 0;
    }
    default: {
        int w = l->width;
        if (reserve(c, 1 + w) < 0) return -1;
        o = c->out + c->out_len;
        o[0] = (uint8_t)(P->ptype << 2);
        memcpy(o + 1, l->b1 + (int64_t)w * p, (size_t)w);
        c->out_len += 1 + w;
        return 0;
    }
    }
}

static int copy_bytes(Ctx *c, const uint8_t *s, int64_t n) {
    if (n > MAX_BINARY_ARRAY_BYTES)
        return fail(c, ERR_TOO_LARGE,
                    "", -1, "a %lld-byte value does not fit one Arrow binary array", (long long)n);
    if (reserve(c, n) < 0) return -1;
    if (n > 0) memcpy(c->out + c->out_len, s, (size_t)n);
    c->out_len += n;
    return 0;
}

static int emit_object(Ctx *c, Level *L, int64_t tj, int64_t vp) {
    int64_t e0 = c->ent_top, ne, k0 = c->kid_top, start, children, n, fi = 0, ri = 0;
    uint32_t max_id = 0;
    const uint32_t *ids = ensure_ids(c, L);
    if (ids == NULL) return -1;
    if (vp >= 0) {
        const uint8_t *buf;
        int64_t len;
        if (leaf_bytes(c, &L->value, vp, &buf, &len, L->value_path) < 0) return -1;
        if (residual_fields(c, L, buf, len) < 0) return -1;
    }
    ne = c->ent_top - e0;
    n = ne;
    for (int64_t i = 0; i < ne; i++)
        if (c->ent[e0 + i].id > max_id) max_id = c->ent[e0 + i].id;
    for (int64_t i = 0; i < L->nfields; i++) {
        int present = probe_level(c, L->fields[i].level, tj, &L->probes[i]);
        if (present < 0) return -1;
        if (!present) continue;
        if (ids[i] == ID_MISSING)
            return fail(c, ERR_SHREDDING, L->fields[i].level->path, -1,
                        "shredded field '%s' is not in the row's metadata dictionary",
                        (const char *)L->fields[i].name);
        if (ids[i] > max_id) max_id = ids[i];
        n++;
    }
    if (open_container(c, n, int_size(max_id), L->offset_size_guess, &start) < 0) return -1;
    children = c->out_len;
    /* Merge the shredded names with the residual ones, both sorted: values go out in name order,
     * as encode_object writes them. */
    while (fi < L->nfields || ri < ne) {
        int take_field;
        int64_t pos = c->out_len - children;
        if (fi < L->nfields && ri < ne) {
            const Field *f = &L->fields[fi];
            const Entry *e = &c->ent[e0 + ri];
            int r = name_cmp(f->name, f->len, e->name, e->len);
            if (r == 0)
                return fail(c, ERR_SHREDDING, L->value_path, -1,
                            "field '%.*s' is both a shredded field and in the value object", (int)e->len,
                            (const char *)e->name);
            take_field = r < 0;
        } else {
            take_field = fi < L->nfields;
        }
        if (take_field) {
            const Probe *pr = &L->probes[fi];
            if (pr->vp >= 0 || pr->tp >= 0) {
                if (emit_probed(c, L->fields[fi].level, pr) < 0) return -1;
                if (push_kid(c, ids[fi], pos) < 0) return -1;
            }
            fi++;
        } else {
            const Entry *e = &c->ent[e0 + ri];
            uint32_t id = e->id;
            if (copy_bytes(c, e->src, e->size) < 0) return -1;
            if (push_kid(c, id, pos) < 0) return -1;
            ri++;
        }
    }
    c->ent_top = e0;
    return close_container(c, L, start, k0, n, 1, int_size(max_id));
}

static int emit_array(Ctx *c, Level *L, int64_t tj) {
    int64_t o0, o1, k0 = c->kid_top, start, children;
    if (L->large_list) {
        memcpy(&o0, L->list_offsets + 8 * tj, 8);
        memcpy(&o1, L->list_offsets + 8 * (tj + 1), 8);
    } else {
        int32_t a, b;
        memcpy(&a, L->list_offsets + 4 * tj, 4);
        memcpy(&b, L->list_offsets + 4 * (tj + 1), 4);
        o0 = a;
        o1 = b;
    }
    if (o0 < 0 || o1 < o0 || o1 > L->elem_len)
        return fail(c, ERR_SCHEMA, L->typed_path, -1, "Arrow list offsets out of range");
    if (open_container(c, o1 - o0, 0, L->offset_size_guess, &start) < 0) return -1;
    children = c->out_len;
    for (int64_t k = o0; k < o1; k++) {
        int present;
        if (push_kid(c, 0, c->out_len - children) < 0) return -1;
        if (emit_level(c, L->element, k, &present) < 0) return -1;
        if (!present) {
            /* A missing element reads as a Variant null (suite case 85): arrays have no holes. */
            if (reserve(c, 1) < 0) return -1;
            c->out[c->out_len++] = NULL_VALUE_BYTE;
        }
    }
    return close_container(c, L, start, k0, o1 - o0, 0, 0);
}

/* Write a present level's value from its probe. */
static int emit_probed(Ctx *c, Level *L, const Probe *pr) {
    if (pr->tp >= 0) {
        switch (L->typed) {
        case T_PRIMITIVE:
            if (pr->vp >= 0)
                return fail(c, ERR_SHREDDING, L->path, -1,
                            "value and typed_value are both non-null, which only a partially shredded "
                            "object may have (typed_value is a shredded primitive)");
            return emit_primitive(c, &L->prim, pr->tp, L->typed_path);
        case T_OBJECT:
            return emit_object(c, L, pr->tp, pr->vp);
        default:
            if (pr->vp >= 0)
                return fail(c, ERR_SHREDDING, L->path, -1,
                            "value and typed_value are both non-null, which only a partially shredded "
                            "object may have (typed_value is a shredded array)");
            return emit_array(c, L, pr->tp);
        }
    }
    {
        const uint8_t *s;
        int64_t n, size;
        if (leaf_bytes(c, &L->value, pr->vp, &s, &n, L->value_path) < 0) return -1;
        /* A value is copied as is: its header must account for exactly its bytes (a shorter
         * size hides trailing garbage, a longer one reads past the value). */
        if (value_size(c, L->value_path, s, 0, n, &size) < 0) return -1;
        if (size != n)
            return fail(c, ERR_MALFORMED, L->value_path, size, "value is %lld bytes but the buffer holds %lld",
                        (long long)size, (long long)n);
        return copy_bytes(c, s, n);
    }
}

/* Write the value of row j of level L (j indexes L's group array), or nothing when missing. */
static int emit_level(Ctx *c, Level *L, int64_t j, int *present) {
    Probe pr;
    int r = probe_level(c, L, j, &pr);
    if (r <= 0) {
        *present = 0;
        return r;
    }
    *present = 1;
    return emit_probed(c, L, &pr);
}

/* ---- the row loop ------------------------------------------------------------------------- */
static int run(Ctx *c, int64_t n, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    Level *top = c->top;
    offsets[0] = 0;
    for (int64_t r = 0; r < n; r++) {
        int present;
        c->row = r;
        if (top->gvalid != NULL && !bit(top->gvalid, top->goff + r)) {
            (*null_count)++;
            offsets[r + 1] = (int32_t)c->out_len;
            continue;
        }
        validity[r >> 3] |= (uint8_t)(1u << (r & 7));
        {
            int64_t mp = leaf_pos(&c->metadata, top->goff + r);
            if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
            if (mp < 0)
                return fail(c, ERR_MALFORMED, "metadata", -1, "metadata is null in a non-null Variant");
            if (leaf_bytes(c, &c->metadata, mp, &c->row_meta, &c->row_meta_len, "metadata") < 0) return -1;
            c->row_meta_checked = 0;
            /* Every row's metadata is checked, not only those of rows holding an object: the
             * metadata column is returned as is. Rows share a few dictionaries, parsed once. */
            if (ensure_metadata(c) < 0) return -1;
        }
        if (emit_level(c, top, r, &present) < 0) return -1;
        if (!present) {
            /* Missing at the top level (suite case 129) is a Variant null. */
            if (reserve(c, 1) < 0) return -1;
            c->out[c->out_len++] = NULL_VALUE_BYTE;
        }
        if (r + 1 == SIZE_SAMPLE_ROWS && n > SIZE_SAMPLE_ROWS) {
            /* Reserve for all rows at the sample's bytes per row: growing a big buffer by doubling
             * costs copies and fresh pages, as much as the work itself. */
            int64_t expect = c->out_len / SIZE_SAMPLE_ROWS * n + c->out_len / SIZE_SAMPLE_ROWS * n / 16;
            /* Capped: skewed first rows must not reserve gigabytes (times the threads). */
            if (expect > MAX_PRERESERVE_BYTES) expect = MAX_PRERESERVE_BYTES;
            if (expect > c->out_cap && grow_out(c, expect) < 0) return -1;
        }
        if (c->out_len > MAX_BINARY_ARRAY_BYTES)
            return fail(c, ERR_TOO_LARGE, "", -1,
                        "%lld bytes of Variant values do not fit one Arrow binary array; "
                        "read smaller batches",
                        (long long)c->out_len);
        offsets[r + 1] = (int32_t)c->out_len;
    }
    return 0;
}

/* ---- extraction along a path (vpush.codec.path.extract_column) ------------------------------ */
/* Each row's metadata and value come from two binary-like Arrow arrays; the value at the path is
 * copied into one binary array. Every check and every error follows the pure-Python reference,
 * `extract` with `_get_field` over `Variant` and `VariantMetadata` views, so that both accept and
 * reject the same bytes: an offset, a header or a field id is checked exactly where the reference
 * checks it, and every read of Variant bytes is bounds-checked first. */

/* Spark's Variant.getFieldByKey scans objects of fewer fields one by one (finding fields of
 * unsorted objects, as DuckDB writes them) and binary-searches larger ones. */
#define SPARK_LINEAR_SEARCH_FIELDS 32
/* Distinct metadata remembered within one call. */
#define X_META_SLOTS 8
/* Inlined into the field scan, which runs for every field before the one found. */
#if defined(__GNUC__)
#define X_HOT __attribute__((always_inline))
#else
#define X_HOT
#endif

typedef struct {
    int is_index;
    int64_t index;
    const uint8_t *key; /* UTF-8 */
    size_t len;
    /* The key holds a character from U+E000 up (a UTF-8 byte from 0xEE up): Spark's UTF-16 order
     * and UTF-8 order may then disagree, and a large object is searched in UTF-16 order. */
    int utf16;
} Seg;

typedef struct {
    const uint8_t *data;
    int64_t len;
    int osz;
    uint64_t dsize;
    uint64_t bytes_start;
    int keys_checked; /* every dictionary string was checked, as VariantMetadata.keys decodes them */
} XMeta;

typedef struct {
    Leaf metadata;
    Leaf value;
    int64_t n;
} Piece;

typedef struct {
    Ctx *c;
    const Seg *segs;
    int64_t nsegs;
    XMeta slots[X_META_SLOTS];
    int nslots;
    int victim;
    XMeta *m; /* the current row's */
} Extract;

typedef struct {
    uint64_t n;
    int isz, osz;
    int64_t ids_start, offsets_start, data_start;
    uint64_t last; /* the last offset: the size of the children's data */
} Container;

/* read_le for the widths of ids and offsets (1 to 4 bytes), unrolled: the hot loop reads many. */
static inline uint64_t x_read(const uint8_t *p, int n) {
    switch (n) {
    case 1: return p[0];
    case 2: return (uint64_t)p[0] | (uint64_t)p[1] << 8;
    case 3: return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16;
    case 4: return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    default: return read_le(p, n);
    }
}

static inline uint64_t xmeta_offset(const XMeta *m, uint64_t i) {
    return x_read(m->data + 1 + (uint64_t)m->osz * (i + 1), m->osz);
}

/* What VariantMetadata(data) checks: the header, and that the offsets and strings fit exactly. */
static int xmeta_open(Ctx *c, XMeta *m, const uint8_t *d, int64_t len) {
    uint8_t h;
    int osz;
    uint64_t dsize, table, last;
    if (len < 1) return fail(c, ERR_MALFORMED, "metadata", 0, "truncated metadata header");
    h = d[0];
    if ((h & 0x0F) != 1)
        return fail(c, ERR_MALFORMED, "metadata", 0, "unsupported metadata version %d (expected 1)", h & 0x0F);
    if (h & 0x20) return fail(c, ERR_MALFORMED, "metadata", 0, "metadata header bit 5 is reserved and must be 0");
    osz = (h >> 6) + 1;
    if (len - 1 < osz) return fail(c, ERR_MALFORMED, "metadata", 1, "truncated metadata dictionary_size");
    dsize = x_read(d + 1, osz);
    /* dsize < 2**32, so the table's size cannot overflow */
    table = (dsize + 1) * (uint64_t)osz;
    if (table > (uint64_t)(len - 1 - osz))
        return fail(c, ERR_MALFORMED, "metadata", 1 + osz, "truncated metadata offsets (%llu strings)",
                    (unsigned long long)dsize);
    m->data = d;
    m->len = len;
    m->osz = osz;
    m->dsize = dsize;
    m->bytes_start = 1 + (uint64_t)osz + table;
    m->keys_checked = 0;
    last = xmeta_offset(m, dsize);
    if (last > (uint64_t)len - m->bytes_start)
        return fail(c, ERR_MALFORMED, "metadata", (int64_t)m->bytes_start, "truncated metadata strings");
    if (m->bytes_start + last != (uint64_t)len)
        return fail(c, ERR_MALFORMED, "metadata", (int64_t)(m->bytes_start + last),
                    "metadata is %llu bytes but the buffer holds %lld",
                    (unsigned long long)(m->bytes_start + last), (long long)len);
    return 0;
}

/* What VariantMetadata.keys checks on first use: offsets never decrease, every string lies in the
 * buffer and is UTF-8. The first offset need not be 0 (only validate() asks that). */
static int xmeta_check_keys(Ctx *c, XMeta *m) {
    uint64_t start = xmeta_offset(m, 0);
    for (uint64_t i = 0; i < m->dsize; i++) {
        uint64_t end = xmeta_offset(m, i + 1);
        if (end < start)
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(1 + (uint64_t)m->osz * (i + 2)),
                        "metadata offset %llu (%llu) is before offset %llu (%llu)", (unsigned long long)(i + 1),
                        (unsigned long long)end, (unsigned long long)i, (unsigned long long)start);
        if (end > (uint64_t)m->len - m->bytes_start)
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(m->bytes_start + start),
                        "truncated metadata string %llu", (unsigned long long)i);
        if (!utf8_valid(m->data + m->bytes_start + start, (int64_t)(end - start)))
            return fail(c, ERR_MALFORMED, "metadata", (int64_t)(m->bytes_start + start),
                        "metadata string %llu is not valid UTF-8", (unsigned long long)i);
        start = end;
    }
    m->keys_checked = 1;
    return 0;
}

/* The dictionary string `field_id`, read from the value at `at` (VariantMetadata.key). */
static inline X_HOT int xmeta_key(Extract *x, uint64_t field_id, int64_t at, const uint8_t **name, size_t *len) {
    XMeta *m = x->m;
    uint64_t a, b;
    if (field_id >= m->dsize)
        return fail(x->c, ERR_MALFORMED, "value", at,
                    "field id %llu is outside the metadata dictionary of %llu strings",
                    (unsigned long long)field_id, (unsigned long long)m->dsize);
    if (!m->keys_checked && xmeta_check_keys(x->c, m) < 0) return -1;
    /* checked above: a <= b <= len - bytes_start */
    a = xmeta_offset(m, field_id);
    b = xmeta_offset(m, field_id + 1);
    *name = m->data + m->bytes_start + a;
    *len = (size_t)(b - a);
    return 0;
}

static inline int xmeta_same(const XMeta *m, const uint8_t *d, int64_t len) {
    return m->len == len && (m->data == d || memcmp(m->data, d, (size_t)len) == 0);
}

/* Point x->m at the row's metadata: the last one, a remembered one, or a newly checked one. */
static int xmeta_row(Extract *x, const uint8_t *d, int64_t len) {
    XMeta opened, *slot;
    if (x->m != NULL && xmeta_same(x->m, d, len)) return 0;
    for (int i = 0; i < x->nslots; i++) {
        if (xmeta_same(&x->slots[i], d, len)) {
            x->m = &x->slots[i];
            return 0;
        }
    }
    if (xmeta_open(x->c, &opened, d, len) < 0) return -1;
    if (x->nslots < X_META_SLOTS) {
        slot = &x->slots[x->nslots++];
    } else {
        slot = &x->slots[x->victim];
        x->victim = (x->victim + 1) % X_META_SLOTS;
    }
    *slot = opened;
    x->m = slot;
    return 0;
}

/* The layout of the object or array at pos < end (_container_layout in vpush.codec.value). */
static int x_container(Ctx *c, const uint8_t *buf, int64_t pos, int64_t end, int is_object, Container *k) {
    int h = buf[pos] >> 2;
    int is_large = is_object ? (h >> 4) & 1 : (h >> 2) & 1;
    int nsz = is_large ? 4 : 1;
    const char *what = is_object ? "object" : "array";
    uint64_t table;
    k->osz = (h & 0x03) + 1;
    k->isz = is_object ? ((h >> 2) & 0x03) + 1 : 0;
    if (!is_object && (h >> 3) != 0)
        return fail(c, ERR_MALFORMED, "value", pos, "array header bits 5-7 are reserved and must be 0");
    if (end - pos - 1 < nsz) return fail(c, ERR_MALFORMED, "value", pos + 1, "truncated %s num_elements", what);
    k->n = x_read(buf + pos + 1, nsz);
    /* n < 2**32: no overflow */
    table = k->n * (uint64_t)k->isz + (k->n + 1) * (uint64_t)k->osz;
    if (table > (uint64_t)(end - pos - 1 - nsz))
        return fail(c, ERR_MALFORMED, "value", pos + 1 + nsz, "truncated %s: %llu elements need a %llu-byte table",
                    what, (unsigned long long)k->n, (unsigned long long)table);
    k->ids_start = pos + 1 + nsz;
    k->offsets_start = k->ids_start + (int64_t)(k->n * (uint64_t)k->isz);
    k->data_start = k->ids_start + (int64_t)table;
    k->last = x_read(buf + k->offsets_start + (int64_t)(k->n * (uint64_t)k->osz), k->osz);
    return 0;
}

/* Where element i lies: [*cpos, *cend) (Variant._child). The start is not checked against the end
 * here, as in the reference: reading the child's header does it. */
static inline X_HOT int x_child(Ctx *c, const uint8_t *buf, const Container *k, int64_t end, uint64_t i,
                                int64_t *cpos, int64_t *cend) {
    int64_t at = k->offsets_start + (int64_t)(i * (uint64_t)k->osz);
    uint64_t off = x_read(buf + at, k->osz), last = k->last;
    if (off >= last)
        return fail(c, ERR_MALFORMED, "value", at, "element %llu starts at offset %llu, past the last offset %llu",
                    (unsigned long long)i, (unsigned long long)off, (unsigned long long)last);
    *cpos = k->data_start + (int64_t)off;
    *cend = k->data_start + (int64_t)last < end ? k->data_start + (int64_t)last : end;
    return 0;
}

/* The next code point of UTF-8 that was checked valid, as a key ordered as Java orders UTF-16:
 * U+E000..U+FFFF (one code unit from 0xE000) after the supplementary characters (surrogate pairs,
 * from 0xD800). */
static inline uint32_t utf16_order_key(const uint8_t *s, size_t n, size_t *i) {
    uint8_t b = s[*i];
    uint32_t cp;
    size_t k;
    if (b < 0x80) {
        cp = b;
        k = 1;
    } else if (b < 0xE0) {
        cp = b & 0x1F;
        k = 2;
    } else if (b < 0xF0) {
        cp = b & 0x0F;
        k = 3;
    } else {
        cp = b & 0x07;
        k = 4;
    }
    if (k > n - *i) k = n - *i; /* never for valid UTF-8; keeps reads in bounds regardless */
    for (size_t j = 1; j < k; j++) cp = (cp << 6) | (s[*i + j] & 0x3F);
    *i += k;
    return cp >= 0xE000 && cp <= 0xFFFF ? cp + 0x110000 : cp;
}

/* Compare two UTF-8 strings in UTF-16 code unit order (Java's String.compareTo). */
static int utf16_cmp(const uint8_t *a, size_t la, const uint8_t *b, size_t lb) {
    size_t i = 0, j = 0;
    while (i < la && j < lb) {
        uint32_t ka = utf16_order_key(a, la, &i), kb = utf16_order_key(b, lb, &j);
        if (ka != kb) return ka < kb ? -1 : 1;
    }
    return i < la ? 1 : j < lb ? -1 : 0;
}

static inline X_HOT int x_field_name(Extract *x, const uint8_t *buf, const Container *k, uint64_t i,
                                     const uint8_t **name, size_t *len) {
    int64_t at = k->ids_start + (int64_t)(i * (uint64_t)k->isz);
    return xmeta_key(x, x_read(buf + at, k->isz), at, name, len);
}

/* Field `s` of the object at pos < end (_get_field in vpush.codec.path); *hit is 0 when absent. */
static int x_field(Extract *x, const uint8_t *buf, int64_t pos, int64_t end, const Seg *s, int64_t *cpos,
                   int64_t *cend, int *hit) {
    Ctx *c = x->c;
    Container k;
    const uint8_t *name;
    size_t len;
    *hit = 0;
    if (x_container(c, buf, pos, end, 1, &k) < 0) return -1;
    if (k.n < SPARK_LINEAR_SEARCH_FIELDS) {
        /* items() builds each (name, child) pair in stored order until one matches */
        for (uint64_t i = 0; i < k.n; i++) {
            int64_t p, e;
            if (x_field_name(x, buf, &k, i, &name, &len) < 0) return -1;
            if (x_child(c, buf, &k, end, i, &p, &e) < 0) return -1;
            if (len == s->len && (len == 0 || memcmp(name, s->key, len) == 0)) {
                *cpos = p;
                *cend = e;
                *hit = 1;
                return 0;
            }
        }
        return 0;
    }
    if (!s->utf16) {
        /* Variant.get: a binary search in UTF-8 byte order */
        uint64_t lo = 0, hi = k.n;
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            int r;
            if (x_field_name(x, buf, &k, mid, &name, &len) < 0) return -1;
            r = name_cmp(name, len, s->key, s->len);
            if (r == 0) {
                *hit = 1;
                return x_child(c, buf, &k, end, mid, cpos, cend);
            }
            if (r < 0) lo = mid + 1;
            else hi = mid;
        }
        return 0;
    }
    /* The reference lists every (name, child) pair first, then binary-searches in UTF-16 order. */
    for (uint64_t i = 0; i < k.n; i++) {
        int64_t p, e;
        if (x_field_name(x, buf, &k, i, &name, &len) < 0) return -1;
        if (x_child(c, buf, &k, end, i, &p, &e) < 0) return -1;
    }
    {
        int64_t low = 0, high = (int64_t)k.n - 1;
        while (low <= high) {
            int64_t mid = (low + high) / 2;
            int r;
            if (x_field_name(x, buf, &k, (uint64_t)mid, &name, &len) < 0) return -1;
            r = utf16_cmp(name, len, s->key, s->len);
            if (r == 0) {
                *hit = 1;
                return x_child(c, buf, &k, end, (uint64_t)mid, cpos, cend);
            }
            if (r < 0) low = mid + 1;
            else high = mid - 1;
        }
    }
    return 0;
}

/* The value at the path in one row's value bytes (extract in vpush.codec.path): *found is 0 where
 * the reference returns None, else the value is [*vpos, *vpos + *vsize). */
static int x_row(Extract *x, const uint8_t *buf, int64_t len, int *found, int64_t *vpos, int64_t *vsize) {
    Ctx *c = x->c;
    int64_t pos = 0, end = len;
    *found = 0;
    for (int64_t i = 0; i < x->nsegs; i++) {
        const Seg *s = &x->segs[i];
        int basic;
        int64_t p, e;
        if (pos >= end) return fail(c, ERR_MALFORMED, "value", pos, "truncated value: no header byte");
        basic = buf[pos] & 0x03;
        /* Spark's VariantGet asks each step's getType(), which raises on a type id it does not know */
        if (basic == BASIC_PRIMITIVE && (buf[pos] >> 2) > PT_LAST)
            return fail(c, ERR_UNKNOWN_ID, "value", pos, "Unknown primitive type with id %d was found in a variant value",
                        buf[pos] >> 2);
        if (s->is_index) {
            Container k;
            if (basic != BASIC_ARRAY) return 0;
            if (x_container(c, buf, pos, end, 0, &k) < 0) return -1;
            if ((uint64_t)s->index >= k.n) return 0;
            if (x_child(c, buf, &k, end, (uint64_t)s->index, &p, &e) < 0) return -1;
        } else {
            int hit;
            if (basic != BASIC_OBJECT) return 0;
            if (x_field(x, buf, pos, end, s, &p, &e, &hit) < 0) return -1;
            if (!hit) return 0;
        }
        pos = p;
        end = e;
    }
    if (value_size(c, "value", buf, pos, end, vsize) < 0) return -1;
    *vpos = pos;
    *found = 1;
    return 0;
}

static int x_run(Extract *x, const Piece *pieces, int64_t npieces, int64_t total, uint8_t *validity,
                 int32_t *offsets, int64_t *null_count) {
    Ctx *c = x->c;
    int64_t row = 0;
    offsets[0] = 0;
    for (int64_t k = 0; k < npieces; k++) {
        const Piece *P = &pieces[k];
        for (int64_t j = 0; j < P->n; j++, row++) {
            int64_t mp = leaf_pos(&P->metadata, j), vp = leaf_pos(&P->value, j);
            int found = 0;
            c->row = row;
            if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
            if (vp == -2) return fail(c, ERR_SCHEMA, "value", -1, "bad Arrow dictionary index");
            if (mp >= 0 && vp >= 0) {
                const uint8_t *meta, *buf;
                int64_t mlen, len, vpos, vsize;
                if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
                if (leaf_bytes(c, &P->value, vp, &buf, &len, "value") < 0) return -1;
                /* the reference builds VariantMetadata for every row with both inputs */
                if (xmeta_row(x, meta, mlen) < 0) return -1;
                if (x_row(x, buf, len, &found, &vpos, &vsize) < 0) return -1;
                if (found) {
                    if (vsize > MAX_BINARY_ARRAY_BYTES - c->out_len)
                        return fail(c, ERR_TOO_LARGE, "", -1,
                                    "over %lld bytes of extracted values do not fit one Arrow binary array; "
                                    "extract smaller batches",
                                    (long long)MAX_BINARY_ARRAY_BYTES);
                    if (reserve(c, vsize) < 0) return -1;
                    memcpy(c->out + c->out_len, buf + vpos, (size_t)vsize);
                    c->out_len += vsize;
                    validity[row >> 3] |= (uint8_t)(1u << (row & 7));
                }
            }
            if (!found) (*null_count)++;
            offsets[row + 1] = (int32_t)c->out_len;
            if (row + 1 == SIZE_SAMPLE_ROWS && total > SIZE_SAMPLE_ROWS) {
                int64_t expect = c->out_len / SIZE_SAMPLE_ROWS * total + c->out_len / SIZE_SAMPLE_ROWS * total / 16;
                if (expect > MAX_PRERESERVE_BYTES) expect = MAX_PRERESERVE_BYTES;
                if (expect > c->out_cap && grow_out(c, expect) < 0) return -1;
            }
        }
    }
    return 0;
}

/* ---- to_json (vpush.codec.json.to_json) ----------------------------------------------------- */
/* Each row's Variant rendered as JSON text exactly as the Python reference writes it (Spark 4.3's
 * to_json): objects in stored field order, Jackson's string escapes, doubles and floats as Java
 * 17's Double.toString and Float.toString (FloatingDecimal, ported digit for digit from
 * vpush.codec.java_format), decimals without trailing zeros, dates and timestamps in java.time's
 * ISO form, binary as base64. The reference checks bytes lazily as it renders; the kernel makes
 * the same checks (the metadata as VariantMetadata(data) does, each container's table, field ids,
 * dictionary strings and child offsets before its children, each scalar's payload), so that both
 * accept and reject the same inputs. Timestamps in a region's time zone take their UTC offset
 * from a Python callable (once per span of constant offset, cached for the call); a fixed offset
 * needs no Python at all. */

#define JSON_MAX_DEPTH 1000 /* vpush.codec.value.MAX_NESTING_DEPTH */
#define BIG_WORDS 64        /* 2048 bits: FloatingDecimal's operands stay under 1100 */

/* -- FloatingDecimal's arithmetic: non-negative big integers in 32-bit words ------------------- */
typedef struct {
    int n; /* words used; the top one is non-zero */
    uint32_t w[BIG_WORDS];
} Big;

static void big_set(Big *a, uint64_t v) {
    a->n = 0;
    while (v) {
        a->w[a->n++] = (uint32_t)v;
        v >>= 32;
    }
}

static void big_mul_small(Big *a, uint32_t m) {
    uint64_t carry = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t t = (uint64_t)a->w[i] * m + carry;
        a->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && a->n < BIG_WORDS) a->w[a->n++] = (uint32_t)carry;
}

static void big_shl(Big *a, int bits) {
    int words = bits / 32, r = bits % 32;
    if (a->n == 0) return;
    if (r) {
        uint32_t carry = 0;
        for (int i = 0; i < a->n; i++) {
            uint32_t v = a->w[i];
            a->w[i] = (v << r) | carry;
            carry = v >> (32 - r);
        }
        if (carry && a->n < BIG_WORDS) a->w[a->n++] = carry;
    }
    if (words) {
        if (a->n + words > BIG_WORDS) words = BIG_WORDS - a->n; /* never: see BIG_WORDS */
        memmove(a->w + words, a->w, (size_t)a->n * sizeof(uint32_t));
        memset(a->w, 0, (size_t)words * sizeof(uint32_t));
        a->n += words;
    }
}

static int big_cmp(const Big *a, const Big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void big_trim(Big *a) {
    while (a->n > 0 && a->w[a->n - 1] == 0) a->n--;
}

/* a -= b, where a >= b */
static void big_sub(Big *a, const Big *b) {
    int64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        int64_t t = (int64_t)a->w[i] - (i < b->n ? (int64_t)b->w[i] : 0) - borrow;
        borrow = t < 0;
        a->w[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
    }
    big_trim(a);
}

static void big_add(Big *out, const Big *a, const Big *b) {
    uint64_t carry = 0;
    int n = a->n > b->n ? a->n : b->n;
    for (int i = 0; i < n; i++) {
        uint64_t t = (uint64_t)(i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0) + carry;
        out->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    out->n = n;
    if (carry && n < BIG_WORDS) out->w[out->n++] = (uint32_t)carry;
}

/* a = mult * 5**p5 << p2 */
static void big_make(Big *a, uint64_t mult, int p5, int p2) {
    big_set(a, mult);
    while (p5 >= 13) {
        big_mul_small(a, 1220703125u); /* 5**13 */
        p5 -= 13;
    }
    if (p5 > 0) {
        uint32_t m = 1;
        while (p5-- > 0) m *= 5;
        big_mul_small(a, m);
    }
    big_shl(a, p2);
}

static int64_t big_to_i64(const Big *a) {
    uint64_t v = 0;
    for (int i = a->n - 1; i >= 0 && i < 2; i--) v = (v << 32) | a->w[i];
    return (int64_t)v;
}

/* Bits of 5**i rounded up, and the insignificant digits of 2**i (java_format's tables). */
static const int N5_BITS[27] = {0,  3,  5,  7,  10, 12, 14, 17, 19, 21, 24, 26, 28, 31,
                                33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56, 59, 61};
static const int POW2_INSIGNIFICANT[64] = {
    0,  0,  0,  0,  1,  1,  1,  2,  2,  2,  3,  3,  3,  3,  4,  4,  4,  5,  5,  5,  6,  6,
    6,  6,  7,  7,  7,  8,  8,  8,  9,  9,  9,  9,  10, 10, 10, 11, 11, 11, 12, 12, 12, 12,
    13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19,
};
#define SIGNIFICAND_MASK ((1ULL << 52) - 1)

/* FloatingDecimal.estimateDecExp, in the same double operations (kept apart: no fused
 * multiply-add may change a rounding). */
static int estimate_decimal_exponent(uint64_t significand, int binary_exponent) {
    uint64_t bits = (1023ULL << 52) | (significand & SIGNIFICAND_MASK);
    double scaled;
    volatile double t1, t2, t3, d;
    memcpy(&scaled, &bits, 8);
    t1 = (scaled - 1.5) * 0.289529654;
    t2 = t1 + 0.176091259;
    t3 = (double)binary_exponent * 0.301029995663981;
    d = t2 + t3;
    return (int)floor(d);
}

static inline int64_t wrap_to(int width, int64_t v) {
    return width == 32 ? (int64_t)(int32_t)(uint32_t)(uint64_t)v : v;
}

/* FloatingDecimal's two notes on the digits it gives, read by java.text.DigitList */
#define JAVA_DIGITS_EXACT 1      /* decimalDigitsExact(): the digits are the value exactly */
#define JAVA_DIGITS_ROUNDED_UP 2 /* digitsRoundedUp(): the last digit was rounded up (no carry out) */

/* _java_digits: the decimal digits (as '0'..'9') of significand * 2**(binary_exponent - 52), bit
 * 52 of significand set, and the exponent e with value = 0.d1d2... * 10**e; flags (when not NULL)
 * gets FloatingDecimal's notes on them. compatible: Double.toString's digits (a second digit
 * forced in E-notation only); 0: the digits java.util.Formatter asks for (isCompatibleFormat
 * false), where the loop always goes on to a second digit. */
static int java_digits(int binary_exponent, uint64_t significand, int significant_bits, char *digits, int *ndigits, int *flags,
                       int compatible) {
    int trailing = __builtin_ctzll(significand);
    int fraction_bits = 53 - trailing;
    int tiny_bits = fraction_bits - binary_exponent - 1;
    int exp10, b5, b2, s5, s2, m5, m2, common, b_bits, ten_s_bits, width, first = 1, low = 0, high = 0, nd = 0;
    if (tiny_bits < 0) tiny_bits = 0;
    if (flags != NULL) *flags = 0; /* dtoa resets both; the integer path below sets neither */
    if (binary_exponent >= -21 && binary_exponent <= 62 && tiny_bits == 0) {
        /* an integer below 2**63 (binary_exponent >= 0 here, as tiny_bits is 0) */
        int insignificant = 0, len;
        uint64_t whole;
        char text[32];
        if (binary_exponent > significant_bits) {
            int p2 = binary_exponent - significant_bits - 1;
            insignificant = (p2 > 1 && p2 < 64) ? POW2_INSIGNIFICANT[p2] : 0;
        }
        whole = binary_exponent >= 52 ? significand << (binary_exponent - 52) : significand >> (52 - binary_exponent);
        if (insignificant) {
            uint64_t p = 1, residue;
            for (int i = 0; i < insignificant; i++) p *= 10;
            residue = whole % p;
            whole /= p;
            if (residue >= p / 2) whole++;
        }
        len = snprintf(text, sizeof text, "%llu", (unsigned long long)whole);
        nd = len;
        while (nd > 0 && text[nd - 1] == '0') nd--;
        memcpy(digits, text, (size_t)nd);
        *ndigits = nd;
        return len + insignificant;
    }
    exp10 = estimate_decimal_exponent(significand, binary_exponent);
    b5 = exp10 < 0 ? -exp10 : 0;
    b2 = b5 + tiny_bits + binary_exponent;
    s5 = exp10 > 0 ? exp10 : 0;
    s2 = s5 + tiny_bits;
    m5 = b5;
    m2 = b2 - significant_bits;
    significand >>= trailing;
    b2 -= fraction_bits - 1;
    common = b2 < s2 ? b2 : s2;
    b2 -= common;
    s2 -= common;
    m2 -= common;
    if (fraction_bits == 1) m2 -= 1; /* a power of two: the next smaller double is half as far */
    if (m2 < 0) {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }
    b_bits = fraction_bits + b2 + (b5 < 27 ? N5_BITS[b5] : b5 * 3);
    ten_s_bits = s2 + 1 + (s5 + 1 < 27 ? N5_BITS[s5 + 1] : (s5 + 1) * 3);
    width = 0;
    if (b_bits < 64 && ten_s_bits < 64) width = (b_bits < 32 && ten_s_bits < 32) ? 32 : 64;
    {
        Big b, s, m, tens, sum;
        int64_t B = 0, S = 0, M = 0, T = 0;
        big_make(&b, significand, b5, b2);
        big_make(&s, 1, s5, s2);
        big_make(&m, 1, m5, m2);
        tens = s;
        big_mul_small(&tens, 10);
        if (width) {
            /* Java's int or long arithmetic: the operands fit (b_bits and ten_s_bits bound them),
             * and only m may overflow as it is multiplied by ten. */
            B = big_to_i64(&b);
            S = big_to_i64(&s);
            M = big_to_i64(&m);
            T = big_to_i64(&tens);
        }
        while (first || !(low || high)) {
            int q;
            if (width) {
                q = (int)(B / S);
                B = B % S;
                B = wrap_to(width, (int64_t)((uint64_t)B * 10u));
                M = wrap_to(width, (int64_t)((uint64_t)M * 10u));
                if (first || M > 0) {
                    low = B < M;
                    high = wrap_to(width, (int64_t)((uint64_t)B + (uint64_t)M)) > T;
                } else {
                    low = high = 1; /* Java's int or long m overflowed */
                }
            } else {
                q = 0;
                while (big_cmp(&b, &s) >= 0) {
                    big_sub(&b, &s);
                    q++;
                }
                big_mul_small(&b, 10);
                big_mul_small(&m, 10);
                low = big_cmp(&b, &m) < 0;
                big_add(&sum, &b, &m);
                high = big_cmp(&sum, &tens) >= 0; /* the big-integer path compares with >= */
            }
            if (first && q == 0 && !high) {
                exp10--; /* the estimate was one too high: drop the leading zero */
            } else if (nd < 30) {
                digits[nd++] = (char)('0' + q);
            }
            if (first && (!compatible || exp10 < -3 || exp10 >= 8)) low = high = 0; /* E-notation, or Formatter's digits: a second digit */
            first = 0;
        }
        if (flags != NULL && (width ? B == 0 : b.n == 0)) *flags |= JAVA_DIGITS_EXACT;
        if (high) {
            int up = !low;
            if (!up) {
                /* both stopping tests hold: round by the remainder, ties to an odd digit */
                int sign;
                if (width) {
                    int64_t diff = wrap_to(width, (int64_t)(((uint64_t)B << 1) - (uint64_t)T));
                    sign = diff > 0 ? 1 : diff < 0 ? -1 : 0;
                } else {
                    Big twice = b;
                    big_shl(&twice, 1);
                    sign = big_cmp(&twice, &tens);
                }
                up = sign > 0 || (sign == 0 && nd > 0 && ((digits[nd - 1] - '0') & 1));
            }
            if (up && nd > 0) {
                int i = nd - 1;
                while (i > 0 && digits[i] == '9') {
                    digits[i] = '0';
                    i--;
                }
                if (digits[i] == '9') {
                    digits[0] = '1';
                    exp10++;
                } else {
                    digits[i]++;
                    if (flags != NULL) *flags |= JAVA_DIGITS_ROUNDED_UP; /* roundup() notes it only without a carry out */
                }
            }
        }
    }
    if (nd == 0) digits[nd++] = '0'; /* unreachable: the first digit is never dropped twice */
    *ndigits = nd;
    return exp10 + 1;
}

/* _java_layout: Java's Double.toString text of the digits (at most 40 bytes). */
static int java_layout(char *out, int negative, const char *digits, int nd, int e) {
    int k = 0;
    if (negative) out[k++] = '-';
    if (e > 0 && e < 8) {
        if (nd <= e) {
            memcpy(out + k, digits, (size_t)nd);
            k += nd;
            for (int i = nd; i < e; i++) out[k++] = '0';
            out[k++] = '.';
            out[k++] = '0';
        } else {
            memcpy(out + k, digits, (size_t)e);
            k += e;
            out[k++] = '.';
            memcpy(out + k, digits + e, (size_t)(nd - e));
            k += nd - e;
        }
    } else if (e > -3 && e <= 0) {
        out[k++] = '0';
        out[k++] = '.';
        for (int i = 0; i < -e; i++) out[k++] = '0';
        memcpy(out + k, digits, (size_t)nd);
        k += nd;
    } else {
        out[k++] = digits[0];
        out[k++] = '.';
        if (nd > 1) {
            memcpy(out + k, digits + 1, (size_t)(nd - 1));
            k += nd - 1;
        } else {
            out[k++] = '0';
        }
        k += snprintf(out + k, 8, "E%d", e - 1);
    }
    return k;
}

/* Java 17's Double.toString of the double with these bits; "NaN" and the infinities unquoted.
 * flags (when not NULL) gets FloatingDecimal's notes on the digits (0 for zero). */
static int java_double_text(char *out, uint64_t bits, int *flags) {
    int negative = (int)(bits >> 63), exponent = (int)((bits >> 52) & 0x7FF), significant_bits, nd, e;
    uint64_t significand = bits & SIGNIFICAND_MASK;
    char digits[32];
    if (exponent == 0x7FF) {
        const char *t = significand ? "NaN" : negative ? "-Infinity" : "Infinity";
        memcpy(out, t, strlen(t));
        return (int)strlen(t);
    }
    if (exponent == 0) {
        int shift;
        if (significand == 0) {
            const char *t = negative ? "-0.0" : "0.0";
            if (flags != NULL) *flags = 0;
            memcpy(out, t, strlen(t));
            return (int)strlen(t);
        }
        shift = 53 - (64 - __builtin_clzll(significand));
        significand <<= shift;
        exponent = 1 - shift;
        significant_bits = 53 - shift;
    } else {
        significand |= 1ULL << 52;
        significant_bits = 53;
    }
    e = java_digits(exponent - 1023, significand, significant_bits, digits, &nd, flags, 1);
    return java_layout(out, negative, digits, nd, e);
}

int format_java_double(char *out, uint64_t bits) {
    return java_double_text(out, bits, NULL);
}

/* Java 17's Float.toString of the float with these bits. */
static int format_java_float(char *out, uint32_t bits) {
    int negative = (int)(bits >> 31), exponent = (int)((bits >> 23) & 0xFF), significant_bits, nd, e;
    uint64_t significand = bits & 0x7FFFFF;
    char digits[32];
    if (exponent == 0xFF) {
        const char *t = significand ? "NaN" : negative ? "-Infinity" : "Infinity";
        memcpy(out, t, strlen(t));
        return (int)strlen(t);
    }
    if (exponent == 0) {
        int shift;
        if (significand == 0) {
            const char *t = negative ? "-0.0" : "0.0";
            memcpy(out, t, strlen(t));
            return (int)strlen(t);
        }
        shift = 24 - (64 - __builtin_clzll(significand));
        significand <<= shift;
        exponent = 1 - shift;
        significant_bits = 24 - shift;
    } else {
        significand |= 1ULL << 23;
        significant_bits = 24;
    }
    /* Java widens the float's bits to a double's position and keeps the float's precision */
    e = java_digits(exponent - 127, significand << 29, significant_bits, digits, &nd, NULL, 1);
    return java_layout(out, negative, digits, nd, e);
}

/* Spark's format_number(x, places) of a double (a float widened to one): java.text.DecimalFormat
 * of "#,###,###,###,###,###,##0" and "." with `places` zeros, US symbols, HALF_EVEN, as Java 17
 * formats a double: DigitList.set parses Double.toString's text (FloatingDecimal's digits, trailing
 * zeros of the text kept until after the underflow checks) and rounds it, a tie at its last digit
 * settled by FloatingDecimal's notes (rounded up: down; inexact: up; exact: to even); then
 * subformat lays the digits out (at most 340 fraction digits for a double). At most
 * FORMAT_PLACES_ROOM bytes. */
#define DOUBLE_FRACTION_DIGITS 340
#define FORMAT_PLACES_ROOM (1 + 309 + 103 + 1 + DOUBLE_FRACTION_DIGITS + 8)

static int digit_list_round_up(const char *d, int count, int keep, int rounded_up, int exact) {
    /* DigitList.shouldRoundUp, HALF_EVEN, for keep < count */
    if (d[keep] > '5') return 1;
    if (d[keep] == '5') {
        if (keep == count - 1) {
            if (rounded_up) return 0;
            if (!exact) return 1;
            return keep > 0 && ((d[keep - 1] - '0') % 2 != 0);
        }
        for (int i = keep + 1; i < count; i++)
            if (d[i] != '0') return 1;
    }
    return 0;
}

/* DigitList.set(String) of a number's text (Double.toString's or BigDecimal.toString's): its
 * significant digits into d (trailing zeros kept), their count and the point's place. */
static void digit_list_parse(const char *text, int len, char *d, int *count_out, int *decimal_at_out) {
    int count = 0, decimal_at = -1, exponent = 0, leading = 0, seen = 0;
    for (int i = 0; i < len; i++) {
        char c = text[i];
        if (c == '.') {
            decimal_at = count;
        } else if (c == 'E') {
            /* the exponent's digits within len: the text may be an Arrow value, not NUL-ended */
            int sign = 1, j = i + 1;
            if (j < len && (text[j] == '-' || text[j] == '+')) sign = text[j++] == '-' ? -1 : 1;
            for (; j < len && text[j] >= '0' && text[j] <= '9' && exponent < 100000000; j++) exponent = exponent * 10 + (text[j] - '0');
            exponent *= sign;
            break;
        } else {
            if (!seen) {
                seen = c != '0';
                if (!seen && decimal_at != -1) leading++;
            }
            if (seen) d[count++] = c;
        }
    }
    if (decimal_at == -1) decimal_at = count;
    if (seen) decimal_at += exponent - leading;
    *count_out = count;
    *decimal_at_out = decimal_at;
}

/* DigitList.set's fixed-point rounding (HALF_EVEN) of the digits to `fraction` fraction digits:
 * the underflow checks first (trailing zeros still there), then the trailing zeros dropped and
 * the digits rounded. */
static void digit_list_fixed(char *d, int *count_io, int *decimal_at_io, int fraction, int rounded_up, int exact) {
    int count = *count_io, decimal_at = *decimal_at_io;
    if (-decimal_at > fraction) {
        count = 0;
    } else if (-decimal_at == fraction) {
        if (count > 0 && digit_list_round_up(d, count, 0, rounded_up, exact)) {
            count = 1;
            decimal_at++;
            d[0] = '1';
        } else {
            count = 0;
        }
    } else {
        int keep;
        while (count > 1 && d[count - 1] == '0') count--;
        keep = fraction + decimal_at;
        if (keep >= 0 && keep < count) {
            if (digit_list_round_up(d, count, keep, rounded_up, exact)) {
                for (;;) {
                    keep--;
                    if (keep < 0) {
                        d[0] = '1';
                        decimal_at++;
                        keep = 0;
                        break;
                    }
                    d[keep]++;
                    if (d[keep] <= '9') break;
                }
                keep++;
            }
            count = keep;
            while (count > 1 && d[count - 1] == '0') count--;
        }
    }
    *count_io = count;
    *decimal_at_io = decimal_at;
}

static int format_decimal_places(char *out, uint64_t bits, int places) {
    char text[40], d[40];
    int negative = (int)(bits >> 63), flags = 0, len, count = 0, decimal_at = 0, k = 0;
    int fraction = places < DOUBLE_FRACTION_DIGITS ? places : DOUBLE_FRACTION_DIGITS, int_digits, index = 0;
    uint64_t magnitude = bits & ~(1ULL << 63);
    if ((magnitude >> 52) == 0x7FF) {
        if (magnitude & SIGNIFICAND_MASK) {
            memcpy(out, "NaN", 3);
            return 3;
        }
        if (negative) out[k++] = '-';
        memcpy(out + k, "\xE2\x88\x9E", 3); /* DecimalFormatSymbols' infinity, U+221E */
        return k + 3;
    }
    len = java_double_text(text, magnitude, &flags);
    digit_list_parse(text, len, d, &count, &decimal_at);
    digit_list_fixed(d, &count, &decimal_at, fraction, flags & JAVA_DIGITS_ROUNDED_UP, flags & JAVA_DIGITS_EXACT);
    /* DecimalFormat.subformat: the sign of the double itself (-0.0 and what rounds to zero keep it) */
    if (negative) out[k++] = '-';
    int_digits = decimal_at > 1 ? decimal_at : 1;
    for (int i = int_digits - 1; i >= 0; i--) {
        out[k++] = (i < decimal_at && index < count) ? d[index++] : '0';
        if (i > 0 && i % 3 == 0) out[k++] = ',';
    }
    if (fraction > 0) {
        out[k++] = '.';
        for (int i = 0; i < fraction; i++) {
            if (-1 - i > decimal_at - 1) {
                out[k++] = '0';
                continue;
            }
            out[k++] = index < count ? d[index++] : '0';
        }
    }
    return k;
}

/* Spark's format_number(x, pattern): java.text.DecimalFormat of a pattern without an exponent or
 * a currency sign (applyPattern's reading of it is vpush.codec.java_decimal_format's), US
 * symbols, HALF_EVEN. A double (a float widened) is DigitList.set's digits of Double.toString
 * (after the multiplier of % or per mille, in double arithmetic, as format(double) does); a
 * decimal is its BigDecimal text (the multiplier exact), rounded the same way at the maximum
 * fraction digits; an integer is format(long)'s: its digits, no fraction but the minimum zeros.
 * subformatNumber lays them out: the minimum integer digits, grouping by its size, a zero when
 * nothing else is printed, the point when a fraction is present or always shown, the fraction
 * between its minimum and maximum digits; between the prefix and suffix of the sign. */
typedef struct {
    int min_int, min_frac, max_frac, grouping, shift, always_point, fast;
    const char *affix[4]; /* positive prefix, positive suffix, negative prefix, negative suffix */
    int affix_len[4];
} NumberPattern;

#define PATTERN_KIND_DOUBLE 0
#define PATTERN_KIND_DECIMAL 1
#define PATTERN_KIND_INTEGER 2
#define PATTERN_DIGITS_ROOM 420 /* digits a value brings: a double's 309 or a decimal's 38, shifted */

static int pattern_room(const NumberPattern *p) {
    int digits = (p->min_int > PATTERN_DIGITS_ROOM ? p->min_int : PATTERN_DIGITS_ROOM);
    return p->affix_len[0] + p->affix_len[1] + p->affix_len[2] + p->affix_len[3] + 2 * digits + p->max_frac + 16;
}

static int pattern_layout(char *out, const NumberPattern *p, int negative, const char *d, int count, int decimal_at, int is_integer) {
    int k = 0, index = 0, int_count = p->min_int, before, fraction_present;
    const char *prefix = p->affix[negative ? 2 : 0], *suffix = p->affix[negative ? 3 : 1];
    int prefix_len = p->affix_len[negative ? 2 : 0], suffix_len = p->affix_len[negative ? 3 : 1];
    if (count == 0) decimal_at = 0; /* DigitList.isZero: normalized */
    memcpy(out, prefix, (size_t)prefix_len);
    k = prefix_len;
    if (decimal_at > 0 && int_count < decimal_at) int_count = decimal_at;
    before = k;
    for (int i = int_count - 1; i >= 0; i--) {
        out[k++] = (i < decimal_at && index < count) ? d[index++] : '0';
        if (p->grouping > 0 && i > 0 && i % p->grouping == 0) out[k++] = ',';
    }
    fraction_present = p->min_frac > 0 || (!is_integer && index < count);
    if (!fraction_present && k == before) out[k++] = '0';
    if (p->always_point || fraction_present) out[k++] = '.';
    for (int i = 0; i < p->max_frac; i++) {
        if (i >= p->min_frac && (is_integer || index >= count)) break;
        if (-1 - i > decimal_at - 1) {
            out[k++] = '0';
            continue;
        }
        out[k++] = (!is_integer && index < count) ? d[index++] : '0';
    }
    memcpy(out + k, suffix, (size_t)suffix_len);
    return k + suffix_len;
}

/* DecimalFormat.fastFormat of a double of at most Integer.MAX_VALUE (the patterns of
 * #,##0.###'s shape: grouping by 3, no multiplier, one minimum integer digit, no minimum fraction
 * digits and a maximum of exactly 3): fastDoubleFormat rounds the binary value itself to 3 fraction digits, half to even
 * (exactRoundUp settles what its double arithmetic cannot), not Double.toString's digits. Here
 * the exact value m * 2^e times 1000 is rounded in integers. */
static int fast_path_double(char *out, const NumberPattern *p, int negative, uint64_t magnitude) {
    char d[24];
    int exponent = (int)(magnitude >> 52), count = 0, decimal_at;
    uint64_t m = magnitude & SIGNIFICAND_MASK, n, q;
    if (exponent == 0) {
        exponent = 1;
    } else {
        m |= 1ULL << 52;
    }
    exponent -= 1075; /* the value is m * 2^exponent */
    n = m * 1000; /* below 2^63 */
    if (exponent >= 0) {
        q = n << exponent; /* the value is at most 2^31: q below 2^41 */
    } else if (-exponent >= 64) {
        q = 0; /* below 2^63 / 2^64: less than half */
    } else {
        int s = -exponent;
        uint64_t r = n & ((1ULL << s) - 1), half = 1ULL << (s - 1);
        q = n >> s;
        if (r > half || (r == half && (q & 1))) q++;
    }
    if (q > 0) {
        char digits[24];
        int nd = 0;
        while (q > 0) {
            digits[nd++] = (char)('0' + q % 10);
            q /= 10;
        }
        for (int i = nd - 1; i >= 0; i--) d[count++] = digits[i];
        decimal_at = nd - 3;
        while (count > 0 && d[count - 1] == '0') count--;
    } else {
        decimal_at = 0;
    }
    return pattern_layout(out, p, negative, d, count, decimal_at, 0);
}

static int format_pattern_double(char *out, const NumberPattern *p, uint64_t bits) {
    char text[40], d[40];
    int negative = (int)(bits >> 63), flags = 0, len, count = 0, decimal_at = 0;
    double value;
    uint64_t magnitude = bits & ~(1ULL << 63);
    if ((magnitude >> 52) == 0x7FF && (magnitude & SIGNIFICAND_MASK)) {
        memcpy(out, "NaN", 3);
        return 3;
    }
    memcpy(&value, &magnitude, 8);
    if (p->shift == 2) value *= 100.0;
    else if (p->shift == 3) value *= 1000.0;
    memcpy(&magnitude, &value, 8);
    if ((magnitude >> 52) == 0x7FF) {
        int k = p->affix_len[negative ? 2 : 0];
        memcpy(out, p->affix[negative ? 2 : 0], (size_t)k);
        memcpy(out + k, "\xE2\x88\x9E", 3); /* DecimalFormatSymbols' infinity, U+221E */
        k += 3;
        memcpy(out + k, p->affix[negative ? 3 : 1], (size_t)p->affix_len[negative ? 3 : 1]);
        return k + p->affix_len[negative ? 3 : 1];
    }
    if (p->fast && value <= 2147483647.0) return fast_path_double(out, p, negative, magnitude);
    len = java_double_text(text, magnitude, &flags);
    digit_list_parse(text, len, d, &count, &decimal_at);
    digit_list_fixed(d, &count, &decimal_at, p->max_frac < DOUBLE_FRACTION_DIGITS ? p->max_frac : DOUBLE_FRACTION_DIGITS,
                     flags & JAVA_DIGITS_ROUNDED_UP, flags & JAVA_DIGITS_EXACT);
    return pattern_layout(out, p, negative, d, count, decimal_at, 0);
}

/* text: an integer's or a decimal's plain text ("-12.50"), at most 80 bytes */
static int format_pattern_text(char *out, const NumberPattern *p, const char *text, int len, int is_integer) {
    char d[96];
    int negative = 0, count = 0, decimal_at = 0;
    if (len > 0 && text[0] == '-') {
        negative = 1;
        text++;
        len--;
    }
    digit_list_parse(text, len, d, &count, &decimal_at);
    if (count == 0) negative = 0; /* BigDecimal.signum and a long's sign: zero is not negative */
    if (count > 0) decimal_at += p->shift;
    if (is_integer) {
        while (count > 0 && d[count - 1] == '0') count--;
    } else {
        digit_list_fixed(d, &count, &decimal_at, p->max_frac, 0, 1);
    }
    return pattern_layout(out, p, negative, d, count, decimal_at, is_integer);
}

/* -- java.util.Formatter's %e %E %f %g %G of a double (Spark's format_string and printf) -------- */
/* Formatter (Locale.US) prints a double from FloatingDecimal's digits in the form Formatter asks
 * for (java_digits, compatible 0), which FormattedFloatingDecimal rounds HALF_UP at the precision
 * by the digit (applyPrecision) and lays out (fillDecimal, fillScientific); Formatter then pads
 * the fraction with zeros, groups, signs and justifies. A float is widened to a double first
 * (Formatter.print(float) casts it). */
#define JAVA_FMT_LEFT 1   /* '-' */
#define JAVA_FMT_PLUS 2   /* '+' */
#define JAVA_FMT_SPACE 4  /* ' ' */
#define JAVA_FMT_ZERO 8   /* '0' */
#define JAVA_FMT_GROUP 16 /* ',' */
#define JAVA_FMT_PAREN 32 /* '(' */
#define JAVA_FMT_ALT 64   /* '#' */
#define JAVA_FMT_LIMIT 10000 /* the largest width and precision the kernel takes */
/* the most bytes one value takes: sign or parentheses, 309 integer digits and their 102 commas,
 * the point, the fraction, the exponent, and the width's padding */
#define JAVA_FMT_ROOM(width, precision) (2 + 309 + 103 + 1 + (precision) + 8 + (width) + 8)

/* FormattedFloatingDecimal.applyPrecision: the digits rounded HALF_UP to prec of them (none for
 * prec < 0), and the exponent after a carry out. */
static int java_apply_precision(int exp, char *digits, int nd, int prec) {
    if (prec >= nd || prec < 0) return exp;
    if (prec == 0) {
        if (digits[0] >= '5') {
            digits[0] = '1';
            memset(digits + 1, '0', (size_t)(nd - 1));
            return exp + 1;
        }
        memset(digits, '0', (size_t)nd);
        return exp;
    }
    if (digits[prec] >= '5') {
        int i = prec - 1;
        while (digits[i] == '9' && i > 0) i--;
        if (digits[i] == '9') {
            digits[0] = '1';
            memset(digits + 1, '0', (size_t)(nd - 1));
            return exp + 1;
        }
        digits[i]++;
        memset(digits + i + 1, '0', (size_t)(nd - i - 1));
    } else {
        memset(digits + prec, '0', (size_t)(nd - prec));
    }
    return exp;
}

/* FormattedFloatingDecimal.fillDecimal: the digits of 0.d1d2... * 10**exp with at most precision
 * of them after the point (the point only when one follows). */
static int java_fill_decimal(char *out, const char *digits, int nd, int exp, int precision) {
    int k = 0;
    if (exp > 0) {
        if (nd < exp) {
            memcpy(out, digits, (size_t)nd);
            memset(out + nd, '0', (size_t)(exp - nd));
            return exp;
        }
        int t = nd - exp < precision ? nd - exp : precision;
        memcpy(out, digits, (size_t)exp);
        k = exp;
        if (t > 0) {
            out[k++] = '.';
            memcpy(out + k, digits + exp, (size_t)t);
            k += t;
        }
        return k;
    }
    int zeros = -exp < precision ? -exp : precision, t = nd < precision + exp ? nd : precision + exp;
    if (zeros < 0) zeros = 0;
    if (t < 0) t = 0;
    if (zeros > 0 || t > 0) {
        out[k++] = '0';
        out[k++] = '.';
        memset(out + k, '0', (size_t)zeros);
        k += zeros;
        memcpy(out + k, digits, (size_t)t);
        return k + t;
    }
    out[0] = '0';
    return 1;
}

/* FormattedFloatingDecimal.fillScientific: d.ddd (at most precision digits after the point) and
 * the exponent's sign and two or three digits. */
static int java_fill_scientific(char *out, char *exponent, int *exponent_len, const char *digits, int nd, int exp, int precision) {
    int t = nd - 1 < precision ? nd - 1 : precision, k = 0, e;
    char sign;
    if (t < 0) t = 0;
    out[k++] = digits[0];
    if (t > 0) {
        out[k++] = '.';
        memcpy(out + k, digits + 1, (size_t)t);
        k += t;
    }
    if (exp <= 0) {
        sign = '-';
        e = -exp + 1;
    } else {
        sign = '+';
        e = exp - 1;
    }
    *exponent_len = snprintf(exponent, 8, "%c%02d", sign, e);
    return k;
}

/* Formatter.addZeros: zeros (and the point they need) up to prec digits after the point. */
static int java_add_zeros(char *mant, int len, int prec) {
    int i = 0, out_prec;
    while (i < len && mant[i] != '.') i++;
    out_prec = i == len ? 0 : len - i - 1;
    if (out_prec >= prec) return len;
    if (i == len) mant[len++] = '.';
    memset(mant + len, '0', (size_t)(prec - out_prec));
    return len + prec - out_prec;
}

/* Formatter.localizedMagnitude (Locale.US): the mantissa with ',' every three integer digits
 * (GROUP), then zeros inserted after the sign (already in out[0..begin)) up to width
 * (ZERO_PAD, width >= 0). Returns the new length of out. */
static int java_localized(char *out, int begin, const char *mant, int len, int flags, int width) {
    int dot = 0, k = begin;
    while (dot < len && mant[dot] != '.') dot++;
    for (int j = 0; j < len; j++) {
        out[k++] = mant[j];
        if (j < dot - 1 && (flags & JAVA_FMT_GROUP) && (dot - j) % 3 == 1) out[k++] = ',';
    }
    if (width >= 0 && (flags & JAVA_FMT_ZERO) && k < width) {
        int pad = width - k;
        memmove(out + begin + pad, out + begin, (size_t)(k - begin));
        memset(out + begin, '0', (size_t)pad);
        k = width;
    }
    return k;
}

/* Formatter.print(double) under conversion (e E f g G), flags (JAVA_FMT_*), width and precision
 * (-1: none); at most JAVA_FMT_ROOM(width, precision) bytes. */
static int java_formatter_double(char *out, uint64_t bits, char conversion, int flags, int width, int precision) {
    int negative = (int)(bits >> 63), exponent = (int)((bits >> 52) & 0x7FF), upper = conversion == 'E' || conversion == 'G';
    int k = 0, len = 0, nd, e, significant_bits, exponent_len = 0, body_len;
    uint64_t significand = bits & SIGNIFICAND_MASK;
    char digits[40], exp_text[8], mant[JAVA_FMT_ROOM(0, JAVA_FMT_LIMIT)], body[JAVA_FMT_ROOM(JAVA_FMT_LIMIT, JAVA_FMT_LIMIT)];
    char lower = (char)(conversion | 0x20);
    int prec = precision < 0 ? 6 : precision;
    if (exponent == 0x7FF && significand) {
        memcpy(body, upper ? "NAN" : "NaN", 3);
        body_len = 3;
    } else {
        /* Double.compare(value, 0.0) == -1: -0.0 is negative too */
        if (negative) body[k++] = (flags & JAVA_FMT_PAREN) ? '(' : '-';
        else if (flags & JAVA_FMT_PLUS) body[k++] = '+';
        else if (flags & JAVA_FMT_SPACE) body[k++] = ' ';
        if (exponent == 0x7FF) {
            memcpy(body + k, upper ? "INFINITY" : "Infinity", 8);
            k += 8;
        } else {
            int zero = exponent == 0 && significand == 0, adjusted = width, has_exp = 0;
            if (zero) {
                digits[0] = '0';
                nd = 1;
                e = 0; /* FloatingDecimal's B2AC_POSITIVE_ZERO */
            } else {
                if (exponent == 0) {
                    int shift = 53 - (64 - __builtin_clzll(significand));
                    significand <<= shift;
                    exponent = 1 - shift;
                    significant_bits = 53 - shift;
                } else {
                    significand |= 1ULL << 52;
                    significant_bits = 53;
                }
                e = java_digits(exponent - 1023, significand, significant_bits, digits, &nd, NULL, 0);
            }
            if (lower == 'f') {
                e = java_apply_precision(e, digits, nd, e + prec);
                len = java_fill_decimal(mant, digits, nd, e, prec);
                len = java_add_zeros(mant, len, prec);
                if ((flags & JAVA_FMT_ALT) && prec == 0) mant[len++] = '.';
            } else if (lower == 'e') {
                e = java_apply_precision(e, digits, nd, prec + 1);
                len = java_fill_scientific(mant, exp_text, &exponent_len, digits, nd, e, prec);
                len = java_add_zeros(mant, len, prec);
                if ((flags & JAVA_FMT_ALT) && prec == 0) mant[len++] = '.';
                if (zero) exponent_len = snprintf(exp_text, sizeof exp_text, "+00");
                has_exp = 1;
            } else {
                int general = precision < 0 ? 6 : precision == 0 ? 1 : precision;
                if (zero) {
                    mant[0] = '0';
                    len = 1;
                    general -= 1;
                } else {
                    e = java_apply_precision(e, digits, nd, general);
                    if (e - 1 < -4 || e - 1 >= general) {
                        len = java_fill_scientific(mant, exp_text, &exponent_len, digits, nd, e, general - 1);
                        has_exp = 1;
                        general -= 1;
                    } else {
                        len = java_fill_decimal(mant, digits, nd, e, general - e);
                        general -= e;
                    }
                }
                len = java_add_zeros(mant, len, general);
            }
            if (width >= 0 && has_exp) adjusted = width - exponent_len - 1;
            if (adjusted >= 0 && negative && (flags & JAVA_FMT_PAREN)) adjusted--;
            k = java_localized(body, k, mant, len, flags, width >= 0 ? adjusted : -1);
            if (has_exp) {
                body[k++] = upper ? 'E' : 'e';
                memcpy(body + k, exp_text, (size_t)exponent_len);
                k += exponent_len;
            }
        }
        if (negative && (flags & JAVA_FMT_PAREN)) body[k++] = ')';
        body_len = k;
    }
    k = 0;
    if (width > body_len && !(flags & JAVA_FMT_LEFT)) {
        memset(out, ' ', (size_t)(width - body_len));
        k = width - body_len;
    }
    memcpy(out + k, body, (size_t)body_len);
    k += body_len;
    if (width > k) {
        memset(out + k, ' ', (size_t)(width - k));
        k = width;
    }
    return k;
}

/* -- dates and times (java.time's ISO forms) -------------------------------------------------- */
static inline int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

/* format_date: yyyy-MM-dd for any year ('+' past 9999, '-' before year 0). */
static int format_date(char *out, int64_t days) {
    int64_t shifted = days + 719468, era = floor_div(shifted, 146097), doe = shifted - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mi = (5 * doy + 2) / 153;
    int64_t day = doy - (153 * mi + 2) / 5 + 1;
    int64_t month = mi < 10 ? mi + 3 : mi - 9;
    int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    if (year > 9999) return snprintf(out, 40, "+%lld-%02lld-%02lld", (long long)year, (long long)month, (long long)day);
    if (year < 0) return snprintf(out, 40, "-%04lld-%02lld-%02lld", (long long)-year, (long long)month, (long long)day);
    return snprintf(out, 40, "%04lld-%02lld-%02lld", (long long)year, (long long)month, (long long)day);
}

/* format_time_of_day: HH:mm:ss, then the fraction without trailing zeros when not zero. */
static int format_time_of_day(char *out, int64_t seconds, int64_t nanos) {
    int k = snprintf(out, 16, "%02lld:%02lld:%02lld", (long long)(seconds / 3600), (long long)(seconds / 60 % 60),
                     (long long)(seconds % 60));
    if (nanos) {
        char frac[16];
        int n = snprintf(frac, sizeof frac, "%09lld", (long long)nanos);
        while (n > 0 && frac[n - 1] == '0') n--;
        out[k++] = '.';
        memcpy(out + k, frac, (size_t)n);
        k += n;
    }
    return k;
}

static int local_date_time(char *out, int64_t epoch_seconds, int64_t nanos) {
    int64_t days = floor_div(epoch_seconds, 86400);
    int k = format_date(out, days);
    out[k++] = ' ';
    return k + format_time_of_day(out + k, epoch_seconds - days * 86400, nanos);
}

/* -- the renderer ------------------------------------------------------------------------------ */
typedef struct {
    int64_t lo, hi; /* [lo, hi): epoch seconds with the same UTC offset */
    int32_t offset;
} ZoneSpan;

typedef struct {
    int64_t end;
    Container k;
    int is_object;
    int depth;
    uint64_t i; /* the next child */
} JFrame;

typedef struct {
    Extract x; /* the metadata of the current row (x.c is the context) */
    JFrame *stack;
    int cap;
    int fixed; /* the zone is a fixed offset */
    int32_t offset;
    int reject_unknown; /* fail on the types Spark 4.3 cannot read, as its to_json does */
    PyObject *zone; /* else: seconds -> (lo, hi, offset) */
    ZoneSpan *spans; /* sorted by lo, disjoint */
    int64_t nspans, capspans;
    int64_t last_span;
} Json;

static inline int j_put(Ctx *c, const void *s, int64_t n) {
    if (n > MAX_BINARY_ARRAY_BYTES - c->out_len)
        return fail(c, ERR_TOO_LARGE, "", -1,
                    "over %lld bytes of JSON text do not fit one Arrow string array; render smaller batches",
                    (long long)MAX_BINARY_ARRAY_BYTES);
    if (reserve(c, n) < 0) return -1;
    memcpy(c->out + c->out_len, s, (size_t)n);
    c->out_len += n;
    return 0;
}

static inline int j_char(Ctx *c, char ch) { return j_put(c, &ch, 1); }

/* quote_json_string over UTF-8 that was checked valid: '"', '\\' and control characters escaped
 * (short forms where JSON has them, else \u00XX), everything else as is. */
static int j_quoted(Ctx *c, const uint8_t *s, int64_t n) {
    static const char hex[] = "0123456789ABCDEF";
    int64_t i = 0;
    if (j_char(c, '"') < 0) return -1;
    while (i < n) {
        int64_t start = i;
        while (i < n && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\') i++;
        if (i > start && j_put(c, s + start, i - start) < 0) return -1;
        if (i < n) {
            char esc[6];
            int k = 2;
            uint8_t ch = s[i++];
            esc[0] = '\\';
            switch (ch) {
            case '"': esc[1] = '"'; break;
            case '\\': esc[1] = '\\'; break;
            case '\b': esc[1] = 'b'; break;
            case '\t': esc[1] = 't'; break;
            case '\n': esc[1] = 'n'; break;
            case '\f': esc[1] = 'f'; break;
            case '\r': esc[1] = 'r'; break;
            default:
                esc[1] = 'u';
                esc[2] = '0';
                esc[3] = '0';
                esc[4] = hex[ch >> 4];
                esc[5] = hex[ch & 15];
                k = 6;
            }
            if (j_put(c, esc, k) < 0) return -1;
        }
    }
    return j_char(c, '"');
}

/* The UTC offset of the session zone at an instant: java_format.zone_offset. */
static int j_offset(Json *j, int64_t seconds, int32_t *offset) {
    Ctx *c = j->x.c;
    int64_t lo = 0, hi = j->nspans;
    PyObject *r;
    long long a, b;
    int off, status = 0;
    if (j->fixed) {
        *offset = j->offset;
        return 0;
    }
    if (j->last_span >= 0 && j->spans[j->last_span].lo <= seconds && seconds < j->spans[j->last_span].hi) {
        *offset = j->spans[j->last_span].offset;
        return 0;
    }
    while (lo < hi) { /* the first span starting after seconds */
        int64_t mid = (lo + hi) / 2;
        if (j->spans[mid].lo <= seconds) lo = mid + 1;
        else hi = mid;
    }
    if (lo > 0 && seconds < j->spans[lo - 1].hi) {
        j->last_span = lo - 1;
        *offset = j->spans[lo - 1].offset;
        return 0;
    }
    /* a span not seen in this call: ask Python, with the GIL */
    if (c->ts != NULL) PyEval_RestoreThread(c->ts);
    r = PyObject_CallFunction(j->zone, "L", (long long)seconds);
    if (r == NULL || !PyArg_ParseTuple(r, "LLi", &a, &b, &off)) {
        status = fail(c, ERR_PYTHON, "", -1, "the time zone lookup failed");
    } else if (!(a <= seconds && seconds < b)) {
        PyErr_Format(PyExc_ValueError, "the time zone lookup of %lld gave the span [%lld, %lld)",
                     (long long)seconds, a, b);
        status = fail(c, ERR_PYTHON, "", -1, "the time zone lookup failed");
    }
    Py_XDECREF(r);
    if (c->ts != NULL) c->ts = PyEval_SaveThread();
    if (status < 0) return -1;
    if (j->nspans == j->capspans &&
        grow(c, (void **)&j->spans, &j->capspans, j->nspans + 1, sizeof(ZoneSpan)) < 0)
        return -1;
    /* spans from the lookup never overlap one another (each is where one offset holds); clip to the
     * neighbours regardless, so that the array stays sorted and disjoint */
    if (lo > 0 && a < j->spans[lo - 1].hi) a = j->spans[lo - 1].hi;
    if (lo < j->nspans && b > j->spans[lo].lo) b = j->spans[lo].lo;
    memmove(j->spans + lo + 1, j->spans + lo, (size_t)(j->nspans - lo) * sizeof(ZoneSpan));
    j->spans[lo].lo = a;
    j->spans[lo].hi = b;
    j->spans[lo].offset = off;
    j->nspans++;
    j->last_span = lo;
    *offset = off;
    return 0;
}

/* format_timestamp: the local date and time in the zone, then its offset (with_zone), or the
 * date and time at UTC without offset; raw counts units_per_second units since the epoch. */
static int j_timestamp(Json *j, int64_t raw, int64_t units_per_second, int with_zone) {
    Ctx *c = j->x.c;
    char text[96];
    int64_t seconds = floor_div(raw, units_per_second);
    int64_t nanos = (raw - seconds * units_per_second) * (1000000000 / units_per_second);
    int k = 0;
    text[k++] = '"';
    if (!with_zone) {
        k += local_date_time(text + k, seconds, nanos);
    } else {
        int32_t offset;
        int64_t abs_offset;
        if (j_offset(j, seconds, &offset) < 0) return -1;
        k += local_date_time(text + k, seconds + offset, nanos);
        if (offset == 0) {
            memcpy(text + k, "+00:00", 6);
            k += 6;
        } else {
            abs_offset = offset < 0 ? -(int64_t)offset : offset;
            k += snprintf(text + k, 16, "%c%02lld:%02lld", offset < 0 ? '-' : '+', (long long)(abs_offset / 3600),
                          (long long)(abs_offset / 60 % 60));
        }
    }
    text[k++] = '"';
    return j_put(c, text, k);
}

static inline int64_t read_signed(const uint8_t *p, int n) {
    uint64_t v = read_le(p, n);
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~0ULL << (8 * n);
    return (int64_t)v;
}

/* The digits of a magnitude below 2**128, most significant first, with no leading zero. */
static int u128_digits(unsigned __int128 v, char *out) {
    char tmp[48];
    int n = 0, k = 0;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    while (n > 0) out[k++] = tmp[--n];
    return k;
}

static int j_decimal(Json *j, const uint8_t *buf, int64_t pos, int ptype) {
    Ctx *c = j->x.c;
    int width = ptype == PT_DECIMAL4 ? 4 : ptype == PT_DECIMAL8 ? 8 : 16;
    int max_precision = ptype == PT_DECIMAL4 ? 9 : ptype == PT_DECIMAL8 ? 18 : 38;
    int scale = buf[pos + 1], negative, nd;
    unsigned __int128 magnitude;
    char digits[48], text[96];
    int k = 0;
    if (width == 16) {
        unsigned __int128 u = ((unsigned __int128)read_le(buf + pos + 10, 8) << 64) | read_le(buf + pos + 2, 8);
        negative = (int)(u >> 127);
        magnitude = negative ? ~u + 1 : u;
    } else {
        int64_t v = read_signed(buf + pos + 2, width);
        negative = v < 0;
        magnitude = negative ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    }
    nd = u128_digits(magnitude, digits);
    if (scale > max_precision || nd > max_precision) {
        /* Spark's checkDecimal: MALFORMED_VARIANT; the unscaled value as Python prints it */
        return fail(c, ERR_MALFORMED, "value", pos, "decimal%d with scale %d and unscaled value %s%.*s is over its precision %d",
                    width, scale, negative ? "-" : "", nd, digits, max_precision);
    }
    if (magnitude == 0) return j_char(c, '0');
    while (scale > 0 && digits[nd - 1] == '0') {
        nd--;
        scale--;
    }
    if (negative) text[k++] = '-';
    if (scale <= 0) {
        memcpy(text + k, digits, (size_t)nd);
        k += nd;
    } else if (nd > scale) {
        memcpy(text + k, digits, (size_t)(nd - scale));
        k += nd - scale;
        text[k++] = '.';
        memcpy(text + k, digits + nd - scale, (size_t)scale);
        k += scale;
    } else {
        text[k++] = '0';
        text[k++] = '.';
        for (int i = nd; i < scale; i++) text[k++] = '0';
        memcpy(text + k, digits, (size_t)nd);
        k += nd;
    }
    return j_put(c, text, k);
}

/* _scalar_json: one scalar at pos < end. */
static int j_scalar(Json *j, const uint8_t *buf, int64_t pos, int64_t end) {
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Ctx *c = j->x.c;
    int basic = buf[pos] & 0x03, h = buf[pos] >> 2;
    int64_t size, p = pos + 1;
    char text[96];
    int k;
    if (basic == BASIC_SHORT_STRING) {
        if (pos + 1 + h > end) return fail(c, ERR_MALFORMED, "value", pos + 1, "truncated short string");
        if (!utf8_valid(buf + p, h)) return fail(c, ERR_MALFORMED, "value", p, "short string is not valid UTF-8");
        return j_quoted(c, buf + p, h);
    }
    if (value_size(c, "value", buf, pos, end, &size) < 0) return -1; /* the payload lies inside */
    if (j->reject_unknown && (h == PT_TIME || h == PT_TIMESTAMP_NANOS || h == PT_TIMESTAMP_NTZ_NANOS))
        return fail(c, ERR_UNKNOWN_TYPE, "value", pos, "Unknown primitive type with id %d was found in a variant value", h);
    switch (h) {
    case PT_NULL: return j_put(c, "null", 4);
    case PT_TRUE: return j_put(c, "true", 4);
    case PT_FALSE: return j_put(c, "false", 5);
    case PT_INT8: case PT_INT16: case PT_INT32: case PT_INT64:
        k = snprintf(text, sizeof text, "%lld", (long long)read_signed(buf + p, PRIMITIVE_FIXED_SIZE[h]));
        return j_put(c, text, k);
    case PT_DOUBLE: {
        uint64_t bits = read_le(buf + p, 8);
        int finite = ((bits >> 52) & 0x7FF) != 0x7FF;
        k = 0;
        if (!finite) text[k++] = '"';
        k += format_java_double(text + k, bits);
        if (!finite) text[k++] = '"';
        return j_put(c, text, k);
    }
    case PT_FLOAT: {
        uint32_t bits = (uint32_t)read_le(buf + p, 4);
        int finite = ((bits >> 23) & 0xFF) != 0xFF;
        k = 0;
        if (!finite) text[k++] = '"';
        k += format_java_float(text + k, bits);
        if (!finite) text[k++] = '"';
        return j_put(c, text, k);
    }
    case PT_DECIMAL4: case PT_DECIMAL8: case PT_DECIMAL16:
        return j_decimal(j, buf, pos, h);
    case PT_DATE:
        text[0] = '"';
        k = 1 + format_date(text + 1, read_signed(buf + p, 4));
        text[k++] = '"';
        return j_put(c, text, k);
    case PT_TIMESTAMP: return j_timestamp(j, read_signed(buf + p, 8), 1000000, 1);
    case PT_TIMESTAMP_NTZ: return j_timestamp(j, read_signed(buf + p, 8), 1000000, 0);
    case PT_TIMESTAMP_NANOS: return j_timestamp(j, read_signed(buf + p, 8), 1000000000, 1);
    case PT_TIMESTAMP_NTZ_NANOS: return j_timestamp(j, read_signed(buf + p, 8), 1000000000, 0);
    case PT_TIME: {
        int64_t micros = read_signed(buf + p, 8);
        if (micros < 0 || micros >= 86400000000LL)
            return fail(c, ERR_MALFORMED, "value", pos, "time %lld is not a microsecond of a day", (long long)micros);
        text[0] = '"';
        k = 1 + format_time_of_day(text + 1, micros / 1000000, micros % 1000000 * 1000);
        text[k++] = '"';
        return j_put(c, text, k);
    }
    case PT_UUID: {
        static const char hex[] = "0123456789abcdef";
        k = 0;
        text[k++] = '"';
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) text[k++] = '-';
            text[k++] = hex[buf[p + i] >> 4];
            text[k++] = hex[buf[p + i] & 15];
        }
        text[k++] = '"';
        return j_put(c, text, k);
    }
    case PT_BINARY: {
        int64_t n = (int64_t)read_le(buf + p, 4), i = 0;
        const uint8_t *d = buf + p + 4;
        char quad[4];
        if (j_char(c, '"') < 0) return -1;
        if (reserve(c, (n + 2) / 3 * 4 + 1) < 0) return -1;
        for (; i + 3 <= n; i += 3) {
            uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
            quad[0] = b64[v >> 18];
            quad[1] = b64[(v >> 12) & 63];
            quad[2] = b64[(v >> 6) & 63];
            quad[3] = b64[v & 63];
            if (j_put(c, quad, 4) < 0) return -1;
        }
        if (i < n) {
            uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0);
            quad[0] = b64[v >> 18];
            quad[1] = b64[(v >> 12) & 63];
            quad[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
            quad[3] = '=';
            if (j_put(c, quad, 4) < 0) return -1;
        }
        return j_char(c, '"');
    }
    case PT_STRING: {
        int64_t n = (int64_t)read_le(buf + p, 4);
        if (!utf8_valid(buf + p + 4, n)) return fail(c, ERR_MALFORMED, "value", p + 4, "string is not valid UTF-8");
        return j_quoted(c, buf + p + 4, n);
    }
    default:
        return fail(c, ERR_MALFORMED, "value", pos, "unknown primitive type id %d", h);
    }
}

/* One row's value, iteratively (the depth is the reference's, 1000 containers). */
static int j_row(Json *j, const uint8_t *buf, int64_t len) {
    Ctx *c = j->x.c;
    int top = 0, depth = 0;
    int64_t pos = 0, end = len;
    for (;;) {
        int basic;
        if (pos >= end) return fail(c, ERR_MALFORMED, "value", pos, "truncated value: no header byte");
        basic = buf[pos] & 0x03;
        if (basic == BASIC_OBJECT || basic == BASIC_ARRAY) {
            JFrame *f;
            int is_object = basic == BASIC_OBJECT;
            if (depth >= JSON_MAX_DEPTH)
                return fail(c, ERR_MALFORMED, "value", pos, "value nested deeper than %d levels", JSON_MAX_DEPTH);
            if (top == j->cap) {
                int cap = j->cap ? j->cap * 2 : 16;
                JFrame *grown = realloc(j->stack, (size_t)cap * sizeof(JFrame));
                if (grown == NULL) return nomem(c);
                j->stack = grown;
                j->cap = cap;
            }
            f = &j->stack[top++];
            if (x_container(c, buf, pos, end, is_object, &f->k) < 0) return -1;
            /* list(node.items()) / list(node.elements()): every child is located, and every field
             * name looked up, before the first is rendered */
            for (uint64_t i = 0; i < f->k.n; i++) {
                int64_t p, e;
                if (is_object) {
                    const uint8_t *name;
                    size_t nlen;
                    if (x_field_name(&j->x, buf, &f->k, i, &name, &nlen) < 0) return -1;
                }
                if (x_child(c, buf, &f->k, end, i, &p, &e) < 0) return -1;
            }
            f->end = end;
            f->is_object = is_object;
            f->depth = depth;
            f->i = 0;
            if (j_char(c, is_object ? '{' : '[') < 0) return -1;
        } else if (j_scalar(j, buf, pos, end) < 0) {
            return -1;
        }
        /* the next value to render, closing every container that ends here */
        for (;;) {
            JFrame *f;
            if (top == 0) return 0;
            f = &j->stack[top - 1];
            if (f->i < f->k.n) {
                if (f->i > 0 && j_char(c, ',') < 0) return -1;
                if (f->is_object) {
                    const uint8_t *name;
                    size_t nlen;
                    if (x_field_name(&j->x, buf, &f->k, f->i, &name, &nlen) < 0) return -1;
                    if (j_quoted(c, name, (int64_t)nlen) < 0 || j_char(c, ':') < 0) return -1;
                }
                if (x_child(c, buf, &f->k, f->end, f->i, &pos, &end) < 0) return -1;
                depth = f->depth + 1;
                f->i++;
                break;
            }
            if (j_char(c, f->is_object ? '}' : ']') < 0) return -1;
            top--;
        }
    }
}

static int j_run(Json *j, const Piece *pieces, int64_t npieces, int64_t total, uint8_t *validity, int32_t *offsets,
                 int64_t *null_count) {
    Ctx *c = j->x.c;
    int64_t row = 0;
    offsets[0] = 0;
    for (int64_t k = 0; k < npieces; k++) {
        const Piece *P = &pieces[k];
        for (int64_t r = 0; r < P->n; r++, row++) {
            int64_t mp = leaf_pos(&P->metadata, r), vp = leaf_pos(&P->value, r);
            c->row = row;
            if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
            if (vp == -2) return fail(c, ERR_SCHEMA, "value", -1, "bad Arrow dictionary index");
            if (mp >= 0 && vp >= 0) {
                const uint8_t *meta, *buf;
                int64_t mlen, len;
                if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
                if (leaf_bytes(c, &P->value, vp, &buf, &len, "value") < 0) return -1;
                /* Variant(metadata, value) checks the metadata of every row */
                if (xmeta_row(&j->x, meta, mlen) < 0) return -1;
                if (j_row(j, buf, len) < 0) return -1;
                validity[row >> 3] |= (uint8_t)(1u << (row & 7));
            } else {
                (*null_count)++;
            }
            offsets[row + 1] = (int32_t)c->out_len;
            if (row + 1 == SIZE_SAMPLE_ROWS && total > SIZE_SAMPLE_ROWS) {
                int64_t expect = c->out_len / SIZE_SAMPLE_ROWS * total + c->out_len / SIZE_SAMPLE_ROWS * total / 16;
                if (expect > MAX_PRERESERVE_BYTES) expect = MAX_PRERESERVE_BYTES;
                if (expect > c->out_cap && grow_out(c, expect) < 0) return -1;
            }
        }
    }
    return 0;
}

/* ---- schema_of_variant (vpush.exec.variant_functions.schema_of_variant) --------------------- */
/* Each row's schema as Spark's SchemaOfVariant.schemaOf builds it and printSchema prints it:
 * every integer a BIGINT, a decimal typed after its trailing zeros are stripped, objects in stored
 * order (which must be strictly ascending in Java's String order, else MALFORMED_VARIANT), array
 * elements merged by JsonInferSchema.compatibleType with VARIANT as the fallback. Schemas live in
 * a per-row arena. One case needs Python: Spark's case-insensitive match of object keys (String.
 * equalsIgnoreCase) between two different keys with non-ASCII characters; the kernel then reports
 * ERR_UNSUPPORTED and the caller computes the batch in Python. */

enum {
    S_VOID, S_BOOLEAN, S_BIGINT, S_FLOAT, S_DOUBLE, S_DECIMAL, S_DATE, S_TIMESTAMP, S_TIMESTAMP_NTZ,
    S_BINARY, S_STRING, S_UUID, S_VARIANT, S_ARRAY, S_OBJECT
};
static const char *const S_NAMES[] = {"VOID", "BOOLEAN", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "DATE",
                                      "TIMESTAMP", "TIMESTAMP_NTZ", "BINARY", "STRING", "UUID", "VARIANT"};

typedef struct {
    uint8_t kind, precision, scale;
    int32_t elem;    /* S_ARRAY: the element's schema */
    int64_t fields;  /* S_OBJECT: the first of n fields in the field arena */
    int64_t n;
} SType;

typedef struct {
    const uint8_t *name; /* UTF-8, in the row's metadata */
    uint32_t len;
    int32_t type;
} SField;

typedef struct {
    Extract x; /* the metadata of the current row (x.c is the context) */
    SType *types;
    int64_t ntypes, captypes;
    SField *fields;
    int64_t nfields, capfields;
} SchemaRun;

static int32_t s_new(SchemaRun *s, int kind) {
    if (s->ntypes == s->captypes && grow(s->x.c, (void **)&s->types, &s->captypes, s->ntypes + 1, sizeof(SType)) < 0)
        return -1;
    memset(&s->types[s->ntypes], 0, sizeof(SType));
    s->types[s->ntypes].kind = (uint8_t)kind;
    return (int32_t)s->ntypes++;
}

static int32_t s_decimal(SchemaRun *s, int precision, int scale) {
    int32_t t = s_new(s, S_DECIMAL);
    if (t >= 0) {
        s->types[t].precision = (uint8_t)precision;
        s->types[t].scale = (uint8_t)scale;
    }
    return t;
}

/* Reserve n contiguous fields; their index. */
static int64_t s_fields(SchemaRun *s, int64_t n) {
    int64_t at = s->nfields;
    if (s->nfields + n > s->capfields &&
        grow(s->x.c, (void **)&s->fields, &s->capfields, s->nfields + n, sizeof(SField)) < 0)
        return -1;
    s->nfields += n;
    return at;
}

static int s_equal(const SchemaRun *s, int32_t a, int32_t b) {
    const SType *x, *y;
    while (a != b) {
        x = &s->types[a];
        y = &s->types[b];
        if (x->kind != y->kind) return 0;
        if (x->kind == S_DECIMAL) return x->precision == y->precision && x->scale == y->scale;
        if (x->kind == S_ARRAY) {
            a = x->elem;
            b = y->elem;
            continue;
        }
        if (x->kind != S_OBJECT) return 1;
        if (x->n != y->n) return 0;
        for (int64_t i = 0; i < x->n; i++) {
            const SField *f = &s->fields[x->fields + i], *g = &s->fields[y->fields + i];
            if (f->len != g->len || memcmp(f->name, g->name, f->len) != 0 || !s_equal(s, f->type, g->type)) return 0;
        }
        return 1;
    }
    return 1;
}

/* Java's String.equalsIgnoreCase: 1, 0, or -1 where only Java's case tables can tell. */
static int s_same_name(const uint8_t *a, uint32_t la, const uint8_t *b, uint32_t lb) {
    int ascii = 1;
    size_t i = 0, j = 0, ua = 0, ub = 0;
    if (la == lb && memcmp(a, b, la) == 0) return 1;
    for (uint32_t k = 0; k < la; k++) ascii &= a[k] < 0x80;
    for (uint32_t k = 0; k < lb; k++) ascii &= b[k] < 0x80;
    if (ascii) {
        if (la != lb) return 0;
        for (uint32_t k = 0; k < la; k++) {
            uint8_t x = a[k], y = b[k];
            if (x >= 'A' && x <= 'Z') x += 32;
            if (y >= 'A' && y <= 'Z') y += 32;
            if (x != y) return 0;
        }
        return 1;
    }
    while (i < la) { /* UTF-16 lengths: a pair for each 4-byte sequence */
        ua += a[i] >= 0xF0 ? 2 : 1;
        i += a[i] < 0x80 ? 1 : a[i] < 0xE0 ? 2 : a[i] < 0xF0 ? 3 : 4;
    }
    while (j < lb) {
        ub += b[j] >= 0xF0 ? 2 : 1;
        j += b[j] < 0x80 ? 1 : b[j] < 0xE0 ? 2 : b[j] < 0xF0 ? 3 : 4;
    }
    return ua != ub ? 0 : -1;
}

#define S_NUMERIC_RANK(k) ((k) == S_BIGINT ? 0 : (k) == S_FLOAT ? 1 : (k) == S_DOUBLE ? 2 : -1)
#define S_DATETIME_RANK(k) ((k) == S_DATE ? 0 : (k) == S_TIMESTAMP_NTZ ? 1 : (k) == S_TIMESTAMP ? 2 : -1)

/* TypeCoercion.findTightestCommonType: 1 with *out set, 0 for none, -1 on failure. */
static int s_tightest(SchemaRun *s, int32_t a, int32_t b, int32_t *out) {
    int ka = s->types[a].kind, kb = s->types[b].kind;
    if (s_equal(s, a, b) || kb == S_VOID) {
        *out = a;
        return 1;
    }
    if (ka == S_VOID) {
        *out = b;
        return 1;
    }
    if (ka == S_BIGINT && kb == S_DECIMAL && s->types[b].precision - s->types[b].scale >= 20) {
        *out = b; /* DecimalType(20, 0), a long, fits in it */
        return 1;
    }
    if (kb == S_BIGINT && ka == S_DECIMAL && s->types[a].precision - s->types[a].scale >= 20) {
        *out = a;
        return 1;
    }
    if (S_NUMERIC_RANK(ka) >= 0 && S_NUMERIC_RANK(kb) >= 0) {
        *out = S_NUMERIC_RANK(ka) >= S_NUMERIC_RANK(kb) ? a : b;
        return 1;
    }
    if (S_DATETIME_RANK(ka) >= 0 && S_DATETIME_RANK(kb) >= 0) {
        *out = S_DATETIME_RANK(ka) >= S_DATETIME_RANK(kb) ? a : b;
        return 1;
    }
    if (ka == S_ARRAY && kb == S_ARRAY) {
        int32_t e, t;
        int r = s_tightest(s, s->types[a].elem, s->types[b].elem, &e);
        if (r <= 0) return r;
        if ((t = s_new(s, S_ARRAY)) < 0) return -1;
        s->types[t].elem = e;
        *out = t;
        return 1;
    }
    if (ka == S_OBJECT && kb == S_OBJECT && s->types[a].n == s->types[b].n) {
        int64_t n = s->types[a].n, at;
        int32_t t;
        for (int64_t i = 0; i < n; i++) {
            const SField *f = &s->fields[s->types[a].fields + i], *g = &s->fields[s->types[b].fields + i];
            int same = s_same_name(f->name, f->len, g->name, g->len);
            if (same < 0)
                return fail(s->x.c, ERR_UNSUPPORTED, "value", -1,
                            "non-ASCII object keys compared ignoring case: computed in Python");
            if (!same) return 0;
        }
        if ((at = s_fields(s, n)) < 0) return -1;
        for (int64_t i = 0; i < n; i++) {
            int32_t merged;
            int r = s_tightest(s, s->fields[s->types[a].fields + i].type, s->fields[s->types[b].fields + i].type, &merged);
            if (r <= 0) return r;
            s->fields[at + i] = s->fields[s->types[a].fields + i];
            s->fields[at + i].type = merged;
        }
        if ((t = s_new(s, S_OBJECT)) < 0) return -1;
        s->types[t].fields = at;
        s->types[t].n = n;
        *out = t;
        return 1;
    }
    return 0;
}

/* JsonInferSchema.compatibleType(a, b, VariantType). */
static int s_merge(SchemaRun *s, int32_t a, int32_t b, int32_t *out) {
    int r = s_tightest(s, a, b, out), ka, kb;
    if (r != 0) return r < 0 ? -1 : 0;
    ka = s->types[a].kind;
    kb = s->types[b].kind;
    if (((ka == S_DOUBLE || ka == S_FLOAT) && kb == S_DECIMAL) || ((kb == S_DOUBLE || kb == S_FLOAT) && ka == S_DECIMAL)) {
        *out = s_new(s, S_DOUBLE);
        return *out < 0 ? -1 : 0;
    }
    if ((ka == S_DECIMAL || ka == S_BIGINT) && (kb == S_DECIMAL || kb == S_BIGINT)) {
        /* a long is DecimalType(20, 0) here (tightest took the decimals wide enough for it) */
        int pa_ = ka == S_BIGINT ? 20 : s->types[a].precision, sa = ka == S_BIGINT ? 0 : s->types[a].scale;
        int pb = kb == S_BIGINT ? 20 : s->types[b].precision, sb = kb == S_BIGINT ? 0 : s->types[b].scale;
        int scale = sa > sb ? sa : sb, digits = pa_ - sa > pb - sb ? pa_ - sa : pb - sb;
        *out = digits + scale > 38 ? s_new(s, S_DOUBLE) : s_decimal(s, digits + scale, scale);
        return *out < 0 ? -1 : 0;
    }
    if (ka == S_ARRAY && kb == S_ARRAY) {
        int32_t e, t;
        if (s_merge(s, s->types[a].elem, s->types[b].elem, &e) < 0 || (t = s_new(s, S_ARRAY)) < 0) return -1;
        s->types[t].elem = e;
        *out = t;
        return 0;
    }
    if (ka == S_OBJECT && kb == S_OBJECT) {
        int64_t na = s->types[a].n, nb = s->types[b].n, fa = s->types[a].fields, fb = s->types[b].fields;
        int64_t i = 0, j = 0, k = 0, at = s_fields(s, na + nb);
        int32_t t;
        if (at < 0) return -1;
        while (i < na || j < nb) {
            int c = i >= na ? 1 : j >= nb ? -1
                  : utf16_cmp(s->fields[fa + i].name, s->fields[fa + i].len, s->fields[fb + j].name, s->fields[fb + j].len);
            if (c == 0) {
                int32_t merged;
                if (s_merge(s, s->fields[fa + i].type, s->fields[fb + j].type, &merged) < 0) return -1;
                s->fields[at + k] = s->fields[fa + i];
                s->fields[at + k].type = merged;
                i++;
                j++;
            } else if (c < 0) {
                s->fields[at + k] = s->fields[fa + i++];
            } else {
                s->fields[at + k] = s->fields[fb + j++];
            }
            k++;
        }
        if ((t = s_new(s, S_OBJECT)) < 0) return -1;
        s->types[t].fields = at;
        s->types[t].n = k;
        *out = t;
        return 0;
    }
    *out = s_new(s, S_VARIANT);
    return *out < 0 ? -1 : 0;
}

/* The schema of a decimal: Spark's Decimal(BigDecimal.stripTrailingZeros()). */
static int32_t s_decimal_of(SchemaRun *s, const uint8_t *buf, int64_t pos, int ptype) {
    Ctx *c = s->x.c;
    int width = ptype == PT_DECIMAL4 ? 4 : ptype == PT_DECIMAL8 ? 8 : 16;
    int max_precision = ptype == PT_DECIMAL4 ? 9 : ptype == PT_DECIMAL8 ? 18 : 38;
    int scale = buf[pos + 1], nd, precision;
    unsigned __int128 magnitude;
    char digits[48];
    if (width == 16) {
        unsigned __int128 u = ((unsigned __int128)read_le(buf + pos + 10, 8) << 64) | read_le(buf + pos + 2, 8);
        magnitude = (u >> 127) ? ~u + 1 : u;
    } else {
        int64_t v = read_signed(buf + pos + 2, width);
        magnitude = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    }
    nd = u128_digits(magnitude, digits);
    if (scale > max_precision || nd > max_precision) {
        fail(c, ERR_MALFORMED, "value", pos, "decimal%d with scale %d and %d digits is over its precision %d", width,
             scale, nd, max_precision);
        return -1;
    }
    if (magnitude == 0) return s_decimal(s, 1, 0);
    while (digits[nd - 1] == '0') {
        nd--;
        scale--;
    }
    precision = nd;
    if (precision < scale) return s_decimal(s, scale, scale);
    if (scale < 0) return s_decimal(s, precision - scale, 0);
    return s_decimal(s, precision, scale);
}

/* SchemaOfVariant.schemaOf of the value at pos < end. */
static int s_of(SchemaRun *s, const uint8_t *buf, int64_t pos, int64_t end, int depth, int32_t *out) {
    Ctx *c = s->x.c;
    int basic, h;
    int64_t size;
    if (pos >= end) return fail(c, ERR_MALFORMED, "value", pos, "truncated value: no header byte");
    basic = buf[pos] & 0x03;
    h = buf[pos] >> 2;
    if (basic == BASIC_OBJECT || basic == BASIC_ARRAY) {
        Container k;
        int is_object = basic == BASIC_OBJECT;
        if (depth >= JSON_MAX_DEPTH)
            return fail(c, ERR_MALFORMED, "value", pos, "value nested deeper than %d levels", JSON_MAX_DEPTH);
        if (x_container(c, buf, pos, end, is_object, &k) < 0) return -1;
        for (uint64_t i = 0; i < k.n; i++) { /* every child located, every name looked up, first */
            int64_t p, e;
            const uint8_t *name;
            size_t nlen;
            if (is_object && x_field_name(&s->x, buf, &k, i, &name, &nlen) < 0) return -1;
            if (x_child(c, buf, &k, end, i, &p, &e) < 0) return -1;
        }
        if (is_object) {
            int64_t at = s_fields(s, (int64_t)k.n);
            int32_t t;
            if (at < 0) return -1;
            for (uint64_t i = 0; i < k.n; i++) {
                int64_t p, e;
                const uint8_t *name;
                size_t nlen;
                int32_t child;
                x_field_name(&s->x, buf, &k, i, &name, &nlen);
                x_child(c, buf, &k, end, i, &p, &e);
                if (s_of(s, buf, p, e, depth + 1, &child) < 0) return -1;
                s->fields[at + (int64_t)i].name = name;
                s->fields[at + (int64_t)i].len = (uint32_t)nlen;
                s->fields[at + (int64_t)i].type = child;
            }
            for (uint64_t i = 1; i < k.n; i++) {
                const SField *f = &s->fields[at + (int64_t)i - 1], *g = &s->fields[at + (int64_t)i];
                if (utf16_cmp(f->name, f->len, g->name, g->len) >= 0)
                    return fail(c, ERR_MALFORMED, "value", pos,
                                "object field %llu is not after field %llu: fields must be sorted by unique name",
                                (unsigned long long)i, (unsigned long long)(i - 1));
            }
            if ((t = s_new(s, S_OBJECT)) < 0) return -1;
            s->types[t].fields = at;
            s->types[t].n = (int64_t)k.n;
            *out = t;
            return 0;
        } else {
            int32_t element = s_new(s, S_VOID), t;
            if (element < 0) return -1;
            for (uint64_t i = 0; i < k.n; i++) {
                int64_t p, e;
                int32_t child;
                x_child(c, buf, &k, end, i, &p, &e);
                if (s_of(s, buf, p, e, depth + 1, &child) < 0 || s_merge(s, element, child, &element) < 0) return -1;
            }
            if ((t = s_new(s, S_ARRAY)) < 0) return -1;
            s->types[t].elem = element;
            *out = t;
            return 0;
        }
    }
    if (basic == BASIC_PRIMITIVE && (h == PT_TIME || h == PT_TIMESTAMP_NANOS || h == PT_TIMESTAMP_NTZ_NANOS))
        return fail(c, ERR_UNKNOWN_TYPE, "value", pos, "Unknown primitive type with id %d was found in a variant value", h);
    if (value_size(c, "value", buf, pos, end, &size) < 0) return -1; /* the payload lies inside */
    if (basic == BASIC_SHORT_STRING) {
        *out = s_new(s, S_STRING);
        return *out < 0 ? -1 : 0;
    }
    switch (h) {
    case PT_NULL: *out = s_new(s, S_VOID); break;
    case PT_TRUE: case PT_FALSE: *out = s_new(s, S_BOOLEAN); break;
    case PT_INT8: case PT_INT16: case PT_INT32: case PT_INT64: *out = s_new(s, S_BIGINT); break;
    case PT_DOUBLE: *out = s_new(s, S_DOUBLE); break;
    case PT_FLOAT: *out = s_new(s, S_FLOAT); break;
    case PT_DECIMAL4: case PT_DECIMAL8: case PT_DECIMAL16: *out = s_decimal_of(s, buf, pos, h); break;
    case PT_DATE: *out = s_new(s, S_DATE); break;
    case PT_TIMESTAMP: *out = s_new(s, S_TIMESTAMP); break;
    case PT_TIMESTAMP_NTZ: *out = s_new(s, S_TIMESTAMP_NTZ); break;
    case PT_BINARY: *out = s_new(s, S_BINARY); break;
    case PT_STRING: *out = s_new(s, S_STRING); break;
    case PT_UUID: *out = s_new(s, S_UUID); break;
    default:
        return fail(c, ERR_UNKNOWN_TYPE, "value", pos, "Unknown primitive type with id %d was found in a variant value", h);
    }
    return *out < 0 ? -1 : 0;
}

/* QuotingUtils.quoteIfNeeded: a plain identifier as is, anything else back-quoted. */
static int s_put_name(Ctx *c, const uint8_t *name, uint32_t len) {
    int plain = len > 0 && !(name[0] >= '0' && name[0] <= '9');
    for (uint32_t i = 0; i < len && plain; i++) {
        uint8_t ch = name[i];
        plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    }
    if (plain) return j_put(c, name, len);
    if (j_char(c, '`') < 0) return -1;
    for (uint32_t i = 0; i < len; i++) {
        uint32_t start = i;
        while (i < len && name[i] != '`') i++;
        if (i > start && j_put(c, name + start, i - start) < 0) return -1;
        if (i < len && j_put(c, "``", 2) < 0) return -1;
    }
    return j_char(c, '`');
}

/* SchemaOfVariant.printSchema. */
static int s_print(SchemaRun *s, int32_t t) {
    Ctx *c = s->x.c;
    const SType *x = &s->types[t];
    char text[32];
    if (x->kind == S_DECIMAL) {
        int k = snprintf(text, sizeof text, "DECIMAL(%d,%d)", x->precision, x->scale);
        return j_put(c, text, k);
    }
    if (x->kind == S_ARRAY) {
        if (j_put(c, "ARRAY<", 6) < 0 || s_print(s, x->elem) < 0) return -1;
        return j_char(c, '>');
    }
    if (x->kind == S_OBJECT) {
        int64_t n = x->n, first = x->fields;
        if (j_put(c, "OBJECT<", 7) < 0) return -1;
        for (int64_t i = 0; i < n; i++) {
            const SField *f = &s->fields[first + i];
            if ((i > 0 && j_put(c, ", ", 2) < 0) || s_put_name(c, f->name, f->len) < 0 || j_put(c, ": ", 2) < 0 ||
                s_print(s, f->type) < 0)
                return -1;
        }
        return j_char(c, '>');
    }
    return j_put(c, S_NAMES[x->kind], (int64_t)strlen(S_NAMES[x->kind]));
}

static int s_run(SchemaRun *s, const Piece *pieces, int64_t npieces, uint8_t *validity, int32_t *offsets,
                 int64_t *null_count) {
    Ctx *c = s->x.c;
    int64_t row = 0;
    offsets[0] = 0;
    for (int64_t k = 0; k < npieces; k++) {
        const Piece *P = &pieces[k];
        for (int64_t r = 0; r < P->n; r++, row++) {
            int64_t mp = leaf_pos(&P->metadata, r), vp = leaf_pos(&P->value, r);
            c->row = row;
            if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
            if (vp == -2) return fail(c, ERR_SCHEMA, "value", -1, "bad Arrow dictionary index");
            if (mp >= 0 && vp >= 0) {
                const uint8_t *meta, *buf;
                int64_t mlen, len;
                int32_t schema;
                if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
                if (leaf_bytes(c, &P->value, vp, &buf, &len, "value") < 0) return -1;
                if (xmeta_row(&s->x, meta, mlen) < 0) return -1;
                s->ntypes = 0;
                s->nfields = 0;
                if (s_of(s, buf, 0, len, 0, &schema) < 0 || s_print(s, schema) < 0) return -1;
                validity[row >> 3] |= (uint8_t)(1u << (row & 7));
            } else {
                (*null_count)++;
            }
            offsets[row + 1] = (int32_t)c->out_len;
        }
    }
    return 0;
}

/* ---- Python ------------------------------------------------------------------------------ */
static PyObject *KernelError;

static void ctx_free(Ctx *c) {
    free_levels(c);
    if (c->has_out_view) PyBuffer_Release(&c->out_view);
    c->has_out_view = 0;
    Py_CLEAR(c->out_obj);
    free(c->ent);
    free(c->kid);
}

/* pyarrow.allocate_buffer(size, resizable=resizable) and a writable view of it. */
static PyObject *allocate(Py_ssize_t size, int resizable, Py_buffer *view) {
    PyObject *mod, *fn, *args = NULL, *kwargs = NULL, *buf = NULL;
    mod = PyImport_ImportModule("pyarrow");
    if (mod == NULL) return NULL;
    fn = PyObject_GetAttrString(mod, "allocate_buffer");
    Py_DECREF(mod);
    if (fn == NULL) return NULL;
    args = Py_BuildValue("(n)", size);
    kwargs = Py_BuildValue("{s:O}", "resizable", resizable ? Py_True : Py_False);
    if (args != NULL && kwargs != NULL) buf = PyObject_Call(fn, args, kwargs);
    Py_DECREF(fn);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    if (buf != NULL && PyObject_GetBuffer(buf, view, PyBUF_WRITABLE) < 0) Py_CLEAR(buf);
    return buf;
}

static PyObject *raise_ctx(Ctx *c) {
    PyObject *args;
    if (c->err == ERR_NOMEM) return PyErr_NoMemory();
    if (c->err == ERR_PYTHON && PyErr_Occurred()) return NULL;
    args = Py_BuildValue("(iLyyL)", c->err, (long long)c->row, c->err_path != NULL ? c->err_path : "", c->msg,
                         (long long)c->err_offset);
    if (args != NULL) {
        PyErr_SetObject(KernelError, args);
        Py_DECREF(args);
    }
    return NULL;
}

/* A context cleared for one call: no row and no byte offset yet to name in an error. */
static void ctx_init(Ctx *c) {
    memset(c, 0, sizeof *c);
    c->row = -1;
    c->err_offset = -1;
}

/* A tuple of our own of the pieces argument in *pieces (the capsules must outlive the loop, which
 * runs without the GIL); 0, or -1 with the exception set (KernelError on a big-endian host). */
static int piece_tuple(Ctx *c, PyObject *pieces_arg, PyObject **pieces) {
    if (!host_is_little_endian()) {
        fail(c, ERR_UNSUPPORTED, "", -1, "the native kernel reads little-endian Arrow buffers only");
        raise_ctx(c);
        return -1;
    }
    *pieces = PySequence_Tuple(pieces_arg);
    return *pieces == NULL ? -1 : 0;
}

/* The buffers of objs[0..count): views[k] held (held[k] set) for each object that is not None,
 * each at least needed[k] bytes long. A None is skipped where bit k of `optional` is set; else it
 * raises ValueError(missing), or, with missing NULL, the TypeError PyObject_GetBuffer raises for
 * it. A short buffer raises "<function>: a buffer is shorter than its offset and length need".
 * 0, or -1 with the exception set (what is held stays held: release_buffers frees it). */
static int hold_buffers(const char *function, PyObject *const *objs, Py_buffer *views, int *held, const int64_t *needed,
                        int count, unsigned optional, const char *missing) {
    int k;
    for (k = 0; k < count; k++) {
        if (objs[k] == Py_None) {
            if (optional & (1u << k)) continue;
            if (missing != NULL) {
                PyErr_SetString(PyExc_ValueError, missing);
                return -1;
            }
        }
        if (PyObject_GetBuffer(objs[k], &views[k], PyBUF_SIMPLE) < 0) return -1;
        held[k] = 1;
        if (views[k].len < needed[k]) {
            PyErr_Format(PyExc_ValueError, "%s: a buffer is shorter than its offset and length need", function);
            return -1;
        }
    }
    return 0;
}

static void release_buffers(Py_buffer *views, int *held, int count) {
    int k;
    for (k = 0; k < count; k++) {
        if (held[k]) PyBuffer_Release(&views[k]);
        held[k] = 0;
    }
}

/* The buffers of a string array of `length` rows being written row by row: validity (a bit per
 * row), int32 offsets, and data of `room` bytes (each row's bytes written at data + used). */
typedef struct {
    PyObject *validity, *offsets, *data;
    uint8_t *valid_bits, *out;
    int32_t *out_offsets;
    int64_t used, nulls;
} StringColumn;

/* Allocate the column's buffers, no row valid yet; 0, or -1 with the exception set. */
static int string_column_open(StringColumn *s, int64_t length, int64_t room) {
    memset(s, 0, sizeof *s);
    s->validity = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((length + 7) / 8));
    s->offsets = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((length + 1) * 4));
    s->data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)room);
    if (s->validity == NULL || s->offsets == NULL || s->data == NULL) return -1;
    s->valid_bits = (uint8_t *)PyBytes_AS_STRING(s->validity);
    s->out = (uint8_t *)PyBytes_AS_STRING(s->data);
    s->out_offsets = (int32_t *)PyBytes_AS_STRING(s->offsets);
    memset(s->valid_bits, 0, (size_t)((length + 7) / 8));
    s->out_offsets[0] = 0;
    return 0;
}

/* Row i ends: `written` bytes written at out + used (valid), or NULL where written < 0. */
static void string_column_row(StringColumn *s, int64_t i, int64_t written) {
    if (written >= 0) {
        s->used += written;
        s->valid_bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    } else {
        s->nulls++;
    }
    s->out_offsets[i + 1] = (int32_t)s->used;
}

/* (failed_row, None, None, None) where a row failed (failed_row >= 0), else (-1, validity or None
 * when no row is null, offsets, data cut to the bytes used); NULL with the exception set. */
static PyObject *string_column_result(StringColumn *s, int64_t failed_row) {
    if (failed_row >= 0) return Py_BuildValue("LOOO", (long long)failed_row, Py_None, Py_None, Py_None);
    if (_PyBytes_Resize(&s->data, (Py_ssize_t)s->used + 1) < 0) return NULL;
    return Py_BuildValue("LOOO", -1LL, s->nulls ? s->validity : Py_None, s->offsets, s->data);
}

static void string_column_close(StringColumn *s) {
    Py_CLEAR(s->validity);
    Py_CLEAR(s->offsets);
    Py_CLEAR(s->data);
}

/* The row loop of one call: fills validity and offsets for every row and appends each value to
 * the context's output buffer; runs without the GIL. */
typedef int (*RowLoop)(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count);

/* Allocate the buffers of a binary array of n rows (validity, offsets, and a growable data buffer
 * owned by c), run loop without the GIL, and return (null_count, validity or None when no row is
 * null, offsets, data); NULL with the exception set when anything fails. */
static PyObject *run_into_binary(Ctx *c, int64_t n, RowLoop loop, void *arg) {
    PyObject *vobj = NULL, *oobj = NULL, *result = NULL, *r;
    Py_buffer vview, oview;
    int64_t null_count = 0;
    int status;
    vobj = allocate((Py_ssize_t)(n / 8 + 1), 0, &vview);
    if (vobj == NULL) goto done;
    oobj = allocate((Py_ssize_t)(sizeof(int32_t) * (size_t)(n + 1)), 0, &oview);
    if (oobj == NULL) {
        PyBuffer_Release(&vview);
        goto done;
    }
    c->out_obj = allocate(4096, 1, &c->out_view);
    if (c->out_obj == NULL) {
        PyBuffer_Release(&vview);
        PyBuffer_Release(&oview);
        goto done;
    }
    c->has_out_view = 1;
    c->out = (uint8_t *)c->out_view.buf;
    c->out_cap = (int64_t)c->out_view.len;
    memset(vview.buf, 0, (size_t)vview.len);
    c->ts = PyEval_SaveThread();
    status = loop(arg, (uint8_t *)vview.buf, (int32_t *)oview.buf, &null_count);
    PyEval_RestoreThread(c->ts);
    c->ts = NULL;
    PyBuffer_Release(&vview);
    PyBuffer_Release(&oview);
    if (status < 0) {
        raise_ctx(c);
        goto done;
    }
    PyBuffer_Release(&c->out_view);
    c->has_out_view = 0;
    r = PyObject_CallMethod(c->out_obj, "resize", "(nO)", (Py_ssize_t)c->out_len, Py_True);
    if (r == NULL) goto done;
    Py_DECREF(r);
    if (null_count == 0) {
        Py_DECREF(vobj);
        vobj = Py_None;
        Py_INCREF(vobj);
    }
    result = Py_BuildValue("(LOOO)", (long long)null_count, vobj, oobj, c->out_obj);
done:
    Py_XDECREF(vobj);
    Py_XDECREF(oobj);
    return result;
}

typedef struct {
    Ctx *c;
    int64_t n;
} UnshredLoop;

static int unshred_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    UnshredLoop *u = (UnshredLoop *)arg;
    return run(u->c, u->n, validity, offsets, null_count);
}

PyDoc_STRVAR(unshred_doc,
             "unshred(schema_capsule, array_capsule, primitive_types=None)\n"
             "    -> (null_count, validity, offsets, data)\n\n"
             "Rebuild the Variant value of every row of a shredded Variant column given as Arrow C Data\n"
             "Interface capsules. primitive_types maps each typed_value level, as a tuple of steps from\n"
             "the top (a field name, or None for a list element), to the Variant primitive type id the\n"
             "layout names; a type that the Arrow values cannot be written as as they are raises the\n"
             "unsupported code. The three buffers are pyarrow buffers of a\n"
             "binary array (validity is None when no row is null). Raises\n"
             "KernelError(code, row, column_path: bytes, message: bytes, byte_offset) on bad input.");

static PyObject *py_unshred(PyObject *self, PyObject *args) {
    PyObject *schema_capsule, *array_capsule, *primitive_types = Py_None;
    struct ArrowSchema *schema;
    struct ArrowArray *array;
    Ctx c;
    UnshredLoop loop;
    int64_t n;
    PyObject *result = NULL, *r;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO|O", &schema_capsule, &array_capsule, &primitive_types)) return NULL;
    schema = PyCapsule_GetPointer(schema_capsule, "arrow_schema");
    if (schema == NULL) return NULL;
    array = PyCapsule_GetPointer(array_capsule, "arrow_array");
    if (array == NULL) return NULL;
    if (schema->release == NULL || array->release == NULL) {
        PyErr_SetString(PyExc_ValueError, "the Arrow capsules were already released");
        return NULL;
    }
    if (primitive_types != Py_None && !PyDict_Check(primitive_types)) {
        PyErr_SetString(PyExc_TypeError, "primitive_types must be a dict or None");
        return NULL;
    }
    ctx_init(&c);
    c.overrides = primitive_types != Py_None ? primitive_types : NULL;
    n = array->length;
    if (!host_is_little_endian()) {
        fail(&c, ERR_UNSUPPORTED, "", -1, "the native kernel reads little-endian Arrow buffers only");
        return raise_ctx(&c);
    }
    if (schema->dictionary != NULL || strcmp(schema->format, "+s") != 0) {
        fail(&c, ERR_SCHEMA,
             "", -1, "a Variant column must be a struct, not Arrow format %s", schema->format);
        return raise_ctx(&c);
    }
    c.top = new_level(&c);
    if (c.top != NULL) c.top->path = join_path(&c, "", "");
    if (c.top != NULL && c.overrides != NULL && (c.top->key = PyTuple_New(0)) == NULL) {
        ctx_free(&c);
        return NULL;
    }
    if (c.top == NULL || c.top->path == NULL || build_level(&c, c.top, schema, array, ROLE_TOP, 0) < 0) {
        r = raise_ctx(&c);
        ctx_free(&c);
        return r;
    }
    c.row = -1;
    loop.c = &c;
    loop.n = n;
    result = run_into_binary(&c, n, unshred_loop, &loop);
    ctx_free(&c);
    return result;
}

/* A leaf over one binary-like input of extract(): binary, large_binary or binary_view, plain or
 * dictionary-encoded. */
static int x_leaf(Ctx *c, Leaf *l, const struct ArrowSchema *s, const struct ArrowArray *a, const char *path) {
    const char *f = s->dictionary != NULL ? s->dictionary->format : s->format;
    if (strcmp(f, "z") != 0 && strcmp(f, "Z") != 0 && strcmp(f, "vz") != 0)
        return fail(c, ERR_UNSUPPORTED, path, -1, "the kernel reads binary %s arrays, not Arrow format %s", path, f);
    return leaf_init(c, l, s, a, LK_OFF32, 0, a->length, path);
}

PyDoc_STRVAR(extract_doc,
             "extract(pieces, segments) -> (null_count, validity, offsets, data)\n\n"
             "The value at a path in every row of a Variant column given as aligned pieces, a list of\n"
             "(metadata_schema, metadata_array, value_schema, value_array) Arrow C Data Interface\n"
             "capsules of equal lengths. segments is a tuple of keys (UTF-8 bytes) and array indexes\n"
             "(int). The three buffers are pyarrow buffers of a binary array of the extracted values,\n"
             "one row per input row (empty in null rows; validity is None when no row is null). Raises\n"
             "KernelError(code, row, where: bytes, message: bytes, byte_offset) on bad input.");

typedef struct {
    Extract *x;
    const Piece *pieces;
    int64_t npieces;
    int64_t total;
} ExtractLoop;

static int extract_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    ExtractLoop *e = (ExtractLoop *)arg;
    return x_run(e->x, e->pieces, e->npieces, e->total, validity, offsets, null_count);
}

static PyObject *py_extract(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *segments, *pieces = NULL;
    PyObject *result = NULL;
    Ctx c;
    Extract x;
    ExtractLoop loop;
    Seg *segs = NULL;
    Piece *P = NULL;
    Py_ssize_t nsegs, npieces;
    int64_t total = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!", &pieces_arg, &PyTuple_Type, &segments)) return NULL;
    ctx_init(&c);
    memset(&x, 0, sizeof x);
    x.c = &c;
    if (piece_tuple(&c, pieces_arg, &pieces) < 0) goto done;
    nsegs = PyTuple_GET_SIZE(segments);
    npieces = PyTuple_GET_SIZE(pieces);
    segs = calloc((size_t)nsegs + 1, sizeof(Seg));
    P = calloc((size_t)npieces + 1, sizeof(Piece));
    if (segs == NULL || P == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nsegs; i++) {
        PyObject *seg = PyTuple_GET_ITEM(segments, i);
        if (PyBytes_Check(seg)) {
            segs[i].key = (const uint8_t *)PyBytes_AS_STRING(seg);
            segs[i].len = (size_t)PyBytes_GET_SIZE(seg);
            for (size_t j = 0; j < segs[i].len; j++)
                if (segs[i].key[j] >= 0xEE) segs[i].utf16 = 1;
        } else if (PyLong_Check(seg) && !PyBool_Check(seg)) {
            long long v = PyLong_AsLongLong(seg);
            if (v == -1 && PyErr_Occurred()) goto done;
            if (v < 0 || v > INT32_MAX) {
                PyErr_Format(PyExc_ValueError, "array index %lld is outside 0..%d", v, INT32_MAX);
                goto done;
            }
            segs[i].is_index = 1;
            segs[i].index = v;
        } else {
            PyErr_SetString(PyExc_TypeError, "a segment is a key (bytes) or an array index (int)");
            goto done;
        }
    }
    for (Py_ssize_t k = 0; k < npieces; k++) {
        PyObject *piece = PyTuple_GET_ITEM(pieces, k);
        struct ArrowSchema *ms, *vs;
        struct ArrowArray *ma, *va;
        if (!PyTuple_Check(piece) || PyTuple_GET_SIZE(piece) != 4) {
            PyErr_SetString(PyExc_TypeError, "a piece is a tuple of 4 Arrow capsules");
            goto done;
        }
        ms = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 0), "arrow_schema");
        if (ms == NULL) goto done;
        ma = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 1), "arrow_array");
        if (ma == NULL) goto done;
        vs = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 2), "arrow_schema");
        if (vs == NULL) goto done;
        va = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 3), "arrow_array");
        if (va == NULL) goto done;
        if (ms->release == NULL || ma->release == NULL || vs->release == NULL || va->release == NULL) {
            PyErr_SetString(PyExc_ValueError, "the Arrow capsules were already released");
            goto done;
        }
        if (ma->length != va->length) {
            PyErr_Format(PyExc_ValueError, "metadata has %lld rows but value has %lld", (long long)ma->length,
                         (long long)va->length);
            goto done;
        }
        if (x_leaf(&c, &P[k].metadata, ms, ma, "metadata") < 0 || x_leaf(&c, &P[k].value, vs, va, "value") < 0) {
            raise_ctx(&c);
            goto done;
        }
        P[k].n = ma->length;
        total += ma->length;
    }
    if (total > INT32_MAX) {
        fail(&c, ERR_TOO_LARGE, "", -1, "%lld rows do not fit one Arrow binary array", (long long)total);
        raise_ctx(&c);
        goto done;
    }
    x.segs = segs;
    x.nsegs = nsegs;
    loop.x = &x;
    loop.pieces = P;
    loop.npieces = npieces;
    loop.total = total;
    result = run_into_binary(&c, total, extract_loop, &loop);
done:
    Py_XDECREF(pieces);
    free(segs);
    free(P);
    ctx_free(&c);
    return result;
}

/* The (metadata, value) pieces of to_json() and schema_of_variant(), as extract() reads them:
 * *P is allocated (free it); -1 with the exception set on failure. */
static int load_pieces(Ctx *c, PyObject *pieces, Piece **out, Py_ssize_t *npieces_out, int64_t *total_out) {
    Py_ssize_t npieces = PyTuple_GET_SIZE(pieces);
    int64_t total = 0;
    Piece *P = calloc((size_t)npieces + 1, sizeof(Piece));
    *out = P;
    *npieces_out = npieces;
    if (P == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < npieces; k++) {
        PyObject *piece = PyTuple_GET_ITEM(pieces, k);
        struct ArrowSchema *ms, *vs;
        struct ArrowArray *ma, *va;
        if (!PyTuple_Check(piece) || PyTuple_GET_SIZE(piece) != 4) {
            PyErr_SetString(PyExc_TypeError, "a piece is a tuple of 4 Arrow capsules");
            return -1;
        }
        ms = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 0), "arrow_schema");
        if (ms == NULL) return -1;
        ma = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 1), "arrow_array");
        if (ma == NULL) return -1;
        vs = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 2), "arrow_schema");
        if (vs == NULL) return -1;
        va = PyCapsule_GetPointer(PyTuple_GET_ITEM(piece, 3), "arrow_array");
        if (va == NULL) return -1;
        if (ms->release == NULL || ma->release == NULL || vs->release == NULL || va->release == NULL) {
            PyErr_SetString(PyExc_ValueError, "the Arrow capsules were already released");
            return -1;
        }
        if (ma->length != va->length) {
            PyErr_Format(PyExc_ValueError, "metadata has %lld rows but value has %lld", (long long)ma->length,
                         (long long)va->length);
            return -1;
        }
        if (x_leaf(c, &P[k].metadata, ms, ma, "metadata") < 0 || x_leaf(c, &P[k].value, vs, va, "value") < 0) {
            raise_ctx(c);
            return -1;
        }
        P[k].n = ma->length;
        total += ma->length;
    }
    if (total > INT32_MAX) {
        fail(c, ERR_TOO_LARGE, "", -1, "%lld rows do not fit one Arrow string array", (long long)total);
        raise_ctx(c);
        return -1;
    }
    *total_out = total;
    return 0;
}

PyDoc_STRVAR(to_json_doc,
             "to_json(pieces, zone, reject_unknown=False) -> (null_count, validity, offsets, data)\n\n"
             "Every row of a Variant column, given as aligned pieces (as extract() takes them), rendered\n"
             "as Spark's to_json text. zone is the session time zone: a fixed UTC offset in seconds\n"
             "(int), or a callable taking epoch seconds and returning (lo, hi, offset), a span [lo, hi)\n"
             "of epoch seconds over which the zone's offset is `offset` seconds. With reject_unknown, a\n"
             "time or nanosecond timestamp fails (code 8), as in Spark 4.3. The three buffers are\n"
             "pyarrow buffers of a string array (validity is None when no row is null). Raises\n"
             "KernelError(code, row, where: bytes, message: bytes, byte_offset) on bad input.");

typedef struct {
    Json *j;
    const Piece *pieces;
    int64_t npieces;
    int64_t total;
} JsonLoop;

static int json_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    JsonLoop *l = (JsonLoop *)arg;
    return j_run(l->j, l->pieces, l->npieces, l->total, validity, offsets, null_count);
}

static PyObject *py_to_json(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *zone, *pieces = NULL, *result = NULL;
    int reject_unknown = 0;
    Ctx c;
    Json j;
    JsonLoop loop;
    Piece *P = NULL;
    Py_ssize_t npieces;
    int64_t total = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO|p", &pieces_arg, &zone, &reject_unknown)) return NULL;
    ctx_init(&c);
    memset(&j, 0, sizeof j);
    j.reject_unknown = reject_unknown;
    j.x.c = &c;
    j.last_span = -1;
    if (PyLong_Check(zone)) {
        long v = PyLong_AsLong(zone);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (v < -18 * 3600 || v > 18 * 3600) {
            PyErr_Format(PyExc_ValueError, "a UTC offset of %ld seconds is outside +-18 hours", v);
            return NULL;
        }
        j.fixed = 1;
        j.offset = (int32_t)v;
    } else if (PyCallable_Check(zone)) {
        j.zone = zone; /* borrowed: the caller's reference outlives the call */
    } else {
        PyErr_SetString(PyExc_TypeError, "zone is a UTC offset in seconds or a callable");
        return NULL;
    }
    if (piece_tuple(&c, pieces_arg, &pieces) < 0 || load_pieces(&c, pieces, &P, &npieces, &total) < 0) goto done;
    loop.j = &j;
    loop.pieces = P;
    loop.npieces = npieces;
    loop.total = total;
    result = run_into_binary(&c, total, json_loop, &loop);
done:
    Py_XDECREF(pieces);
    free(P);
    free(j.stack);
    free(j.spans);
    ctx_free(&c);
    return result;
}

PyDoc_STRVAR(schema_of_variant_doc,
             "schema_of_variant(pieces) -> (null_count, validity, offsets, data)\n\n"
             "Every row of a Variant column, given as aligned pieces (as extract() takes them), as Spark's\n"
             "schema_of_variant text. The three buffers are pyarrow buffers of a string array (validity is\n"
             "None when no row is null). Raises KernelError(code, row, where: bytes, message: bytes,\n"
             "byte_offset) on bad input (code 8: a type Spark 4.3 cannot read; code 1: a case only Python\n"
             "decides).");

typedef struct {
    SchemaRun *s;
    const Piece *pieces;
    int64_t npieces;
} SchemaLoop;

static int schema_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    SchemaLoop *l = (SchemaLoop *)arg;
    return s_run(l->s, l->pieces, l->npieces, validity, offsets, null_count);
}

static PyObject *py_schema_of_variant(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *pieces = NULL, *result = NULL;
    Ctx c;
    SchemaRun s;
    SchemaLoop loop;
    Piece *P = NULL;
    Py_ssize_t npieces = 0;
    int64_t total = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "O", &pieces_arg)) return NULL;
    ctx_init(&c);
    memset(&s, 0, sizeof s);
    s.x.c = &c;
    if (piece_tuple(&c, pieces_arg, &pieces) < 0 || load_pieces(&c, pieces, &P, &npieces, &total) < 0) goto done;
    loop.s = &s;
    loop.pieces = P;
    loop.npieces = npieces;
    result = run_into_binary(&c, total, schema_loop, &loop);
done:
    Py_XDECREF(pieces);
    free(P);
    free(s.types);
    free(s.fields);
    ctx_free(&c);
    return result;
}

/* ---- explode: the elements of arrays and the fields of objects ------------------------------ */
/* Each row's top-level array or object taken apart (Variant.elements / Variant.items in
 * vpush.codec.value): a first pass counts, per row, the kind of value (0 SQL NULL, 1 array,
 * 2 object, 3 any other value) and its elements; the second emits every element's value bytes
 * (valid with the row's metadata), or every element's key (NULL for an array's elements), one
 * binary array of all the rows' elements in order. Each pass makes the reference's checks. */

enum { EXPLODE_NULL = 0, EXPLODE_ARRAY = 1, EXPLODE_OBJECT = 2, EXPLODE_OTHER = 3 };

typedef struct {
    Extract x;
    const Piece *pieces;
    int64_t npieces;
    int mode; /* 0: count, 1: element values, 2: object keys */
    uint8_t *kinds;
    int32_t *counts;
} ExplodeRun;

static int explode_row(ExplodeRun *e, const Piece *P, int64_t j, const uint8_t **buf, int64_t *len, Container *k,
                       int *kind) {
    Ctx *c = e->x.c;
    int64_t mp = leaf_pos(&P->metadata, j), vp = leaf_pos(&P->value, j), mlen;
    const uint8_t *meta;
    int basic;
    *kind = EXPLODE_NULL;
    if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
    if (vp == -2) return fail(c, ERR_SCHEMA, "value", -1, "bad Arrow dictionary index");
    if (mp < 0 || vp < 0) return 0;
    if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
    if (leaf_bytes(c, &P->value, vp, buf, len, "value") < 0) return -1;
    if (xmeta_row(&e->x, meta, mlen) < 0) return -1;
    if (*len < 1) return fail(c, ERR_MALFORMED, "value", 0, "truncated value: no header byte");
    basic = (*buf)[0] & 0x03;
    if (basic != BASIC_ARRAY && basic != BASIC_OBJECT) {
        *kind = EXPLODE_OTHER;
        return 0;
    }
    if (x_container(c, *buf, 0, *len, basic == BASIC_OBJECT, k) < 0) return -1;
    *kind = basic == BASIC_ARRAY ? EXPLODE_ARRAY : EXPLODE_OBJECT;
    return 0;
}

static int explode_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    ExplodeRun *e = (ExplodeRun *)arg;
    Ctx *c = e->x.c;
    int64_t row = 0, out = 0;
    if (offsets != NULL) offsets[0] = 0;
    for (int64_t p = 0; p < e->npieces; p++) {
        const Piece *P = &e->pieces[p];
        for (int64_t j = 0; j < P->n; j++, row++) {
            const uint8_t *buf = NULL;
            int64_t len = 0;
            Container k;
            int kind;
            c->row = row;
            if (explode_row(e, P, j, &buf, &len, &k, &kind) < 0) return -1;
            if (e->mode == 0) {
                e->kinds[row] = (uint8_t)kind;
                e->counts[row] = kind == EXPLODE_ARRAY || kind == EXPLODE_OBJECT ? (int32_t)k.n : 0;
                continue;
            }
            if (kind != EXPLODE_ARRAY && kind != EXPLODE_OBJECT) continue;
            for (uint64_t i = 0; i < k.n; i++, out++) {
                const uint8_t *bytes = NULL;
                int64_t size = 0;
                if (e->mode == 1) {
                    int64_t cpos, cend;
                    if (x_child(c, buf, &k, len, i, &cpos, &cend) < 0) return -1;
                    if (value_size(c, "value", buf, cpos, cend, &size) < 0) return -1;
                    bytes = buf + cpos;
                } else if (kind == EXPLODE_OBJECT) {
                    size_t nlen;
                    if (x_field_name(&e->x, buf, &k, i, &bytes, &nlen) < 0) return -1;
                    size = (int64_t)nlen;
                }
                if (bytes == NULL) {
                    (*null_count)++; /* an array element's key */
                } else {
                    if (size > MAX_BINARY_ARRAY_BYTES - c->out_len)
                        return fail(c, ERR_TOO_LARGE, "", -1, "the elements exceed one Arrow binary array; explode smaller batches");
                    if (reserve(c, size) < 0) return -1;
                    memcpy(c->out + c->out_len, bytes, (size_t)size);
                    c->out_len += size;
                    validity[out >> 3] |= (uint8_t)(1u << (out & 7));
                }
                offsets[out + 1] = (int32_t)c->out_len;
            }
        }
    }
    return 0;
}

PyDoc_STRVAR(explode_doc,
             "explode(pieces, total, mode) -> ...\n\n"
             "The top-level arrays and objects of a Variant column given as aligned pieces (as extract()\n"
             "takes them). mode 0 returns (kinds, counts): bytes of one uint8 a row (0 SQL NULL, 1 array,\n"
             "2 object, 3 another value) and of one int32 a row (its elements; 0 unless an array or\n"
             "object). mode 1 and 2 take the total of the counts and return (null_count, validity,\n"
             "offsets, data) of a binary array of every element's value bytes (1), or of every\n"
             "element's key, NULL for an array's (2). Raises KernelError as extract() does.");

static PyObject *py_explode(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *pieces = NULL, *result = NULL, *kinds = NULL, *counts = NULL;
    long long total_elements;
    int mode;
    Ctx c;
    ExplodeRun e;
    Piece *P = NULL;
    Py_ssize_t npieces = 0;
    int64_t total = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OLi", &pieces_arg, &total_elements, &mode)) return NULL;
    if (mode < 0 || mode > 2 || total_elements < 0 || total_elements > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "explode: mode is 0, 1 or 2, and the total fits an int32");
        return NULL;
    }
    ctx_init(&c);
    memset(&e, 0, sizeof e);
    e.x.c = &c;
    e.mode = mode;
    if (piece_tuple(&c, pieces_arg, &pieces) < 0 || load_pieces(&c, pieces, &P, &npieces, &total) < 0) goto done;
    e.pieces = P;
    e.npieces = npieces;
    if (mode == 0) {
        int status;
        kinds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
        counts = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(total * (int64_t)sizeof(int32_t)));
        if (kinds == NULL || counts == NULL) goto done;
        e.kinds = (uint8_t *)PyBytes_AS_STRING(kinds);
        e.counts = (int32_t *)PyBytes_AS_STRING(counts);
        c.ts = PyEval_SaveThread();
        status = explode_loop(&e, NULL, NULL, NULL);
        PyEval_RestoreThread(c.ts);
        c.ts = NULL;
        if (status < 0) {
            raise_ctx(&c);
            goto done;
        }
        result = PyTuple_Pack(2, kinds, counts);
    } else {
        result = run_into_binary(&c, total_elements, explode_loop, &e);
    }
done:
    Py_XDECREF(kinds);
    Py_XDECREF(counts);
    Py_XDECREF(pieces);
    free(P);
    ctx_free(&c);
    return result;
}

/* ---- Java's text of doubles and floats ----------------------------------------------------- */

typedef struct {
    Ctx *c;
    const uint8_t *values, *validity;
    int64_t n, offset;
    int width; /* 8: double, 4: float */
    const int32_t *places; /* format_number's places (NULL: Double.toString) */
    const uint8_t *places_validity;
    int64_t places_offset;
} FormatLoop;

/* One text per row into a string array's buffers, the loop the formatting kernels share: a row
   null in `in_validity` (NULL: none is) is null; any other row's text is written by `text` into
   `room` reserved bytes, which returns its length, ROW_TEXT_NULL for a null row, or -1 after fail(). */
#define ROW_TEXT_NULL (-2)
typedef int64_t (*RowText)(void *arg, int64_t at, int64_t row, char *out);

static int text_rows(Ctx *c, const uint8_t *in_validity, int64_t offset, int64_t n, int64_t room, RowText text, void *arg,
                     uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    offsets[0] = 0;
    for (int64_t row = 0; row < n; row++) {
        int64_t at = offset + row;
        if (in_validity != NULL && !((in_validity[at >> 3] >> (at & 7)) & 1)) {
            (*null_count)++;
        } else {
            int64_t len;
            if (reserve(c, room) < 0) return -1;
            len = text(arg, at, row, (char *)c->out + c->out_len);
            if (len == -1) return -1;
            if (len == ROW_TEXT_NULL) {
                (*null_count)++;
            } else {
                c->out_len += len;
                validity[row >> 3] |= (uint8_t)(1u << (row & 7));
            }
        }
        if (c->out_len > INT32_MAX) return fail(c, ERR_TOO_LARGE, "", -1, "the text exceeds a string array's 2 GiB");
        offsets[row + 1] = (int32_t)c->out_len;
    }
    return 0;
}

static int64_t format_row(void *arg, int64_t at, int64_t row, char *out) {
    FormatLoop *l = (FormatLoop *)arg;
    (void)row;
    if (l->places != NULL) {
        int64_t place_at = l->places_offset + (at - l->offset);
        uint64_t bits;
        if ((l->places_validity != NULL && !((l->places_validity[place_at >> 3] >> (place_at & 7)) & 1)) || l->places[place_at] < 0)
            return ROW_TEXT_NULL; /* format_number: NULL for NULL or negative places */
        memcpy(&bits, l->values + at * 8, 8);
        return format_decimal_places(out, bits, l->places[place_at]);
    }
    if (l->width == 8) {
        uint64_t bits;
        memcpy(&bits, l->values + at * 8, 8);
        return format_java_double(out, bits);
    } else {
        uint32_t bits;
        memcpy(&bits, l->values + at * 4, 4);
        return format_java_float(out, bits);
    }
}

static int format_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    FormatLoop *l = (FormatLoop *)arg;
    /* Java's longest text of a double, -4.9E-324 style or 20 digits with sign and point, fits 32. */
    return text_rows(l->c, l->validity, l->offset, l->n, l->places != NULL ? FORMAT_PLACES_ROOM : 32, format_row, l, validity, offsets,
                     null_count);
}

PyDoc_STRVAR(format_java_doc,
             "format_java(values, validity, offset, length, width[, places, places_validity, places_offset])\n"
             "    -> (null_count, validity, offsets, data)\n\n"
             "Each double (width 8) or float (width 4) of an Arrow array's buffers as Java 17's\n"
             "Double.toString or Float.toString prints it (Spark's cast to string). values and validity\n"
             "(None when no row is null) are the array's buffers, offset and length its slice. With places\n"
             "(an int32 array's buffers, at places_offset), each double (width 8 only) as Spark's\n"
             "format_number(x, places) prints it, NULL where places is NULL or negative. The three\n"
             "buffers returned are pyarrow buffers of a string array (validity is None when no row is null).");

static PyObject *py_format_java(PyObject *self, PyObject *args) {
    PyObject *values_obj, *validity_obj, *places_obj = Py_None, *places_validity_obj = Py_None, *result = NULL;
    Py_buffer views[4]; /* values, validity, places, places' validity */
    int held[4] = {0, 0, 0, 0};
    long long offset, length, places_offset = 0;
    int width;
    Ctx c;
    FormatLoop loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOLLi|OOL", &values_obj, &validity_obj, &offset, &length, &width, &places_obj, &places_validity_obj,
                          &places_offset))
        return NULL;
    if ((width != 4 && width != 8) || offset < 0 || length < 0 || places_offset < 0 || (places_obj != Py_None && width != 8)) {
        PyErr_SetString(PyExc_ValueError, "format_java: width must be 4 or 8 (8 with places), offsets and length non-negative");
        return NULL;
    }
    {
        /* the places' validity is read only with the places */
        PyObject *const objs[4] = {values_obj, validity_obj, places_obj, places_obj != Py_None ? places_validity_obj : Py_None};
        const int64_t needed[4] = {0, 0, 0, 0}; /* checked below, together */
        if (hold_buffers("format_java", objs, views, held, needed, 4, 0xEu, NULL) < 0) goto done;
    }
    if ((offset + length) * width > views[0].len || (held[1] && (offset + length + 7) / 8 > views[1].len) ||
        (held[2] && (places_offset + length) * 4 > views[2].len) ||
        (held[3] && (places_offset + length + 7) / 8 > views[3].len)) {
        PyErr_SetString(PyExc_ValueError, "format_java: the buffers are shorter than offset + length");
        goto done;
    }
    ctx_init(&c);
    loop.c = &c;
    loop.values = (const uint8_t *)views[0].buf;
    loop.validity = held[1] ? (const uint8_t *)views[1].buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.width = width;
    loop.places = held[2] ? (const int32_t *)views[2].buf : NULL;
    loop.places_validity = held[3] ? (const uint8_t *)views[3].buf : NULL;
    loop.places_offset = places_offset;
    result = run_into_binary(&c, length, format_loop, &loop);
    ctx_free(&c);
done:
    release_buffers(views, held, 4);
    return result;
}

typedef struct {
    Ctx *c;
    const uint8_t *values, *validity;
    int64_t n, offset;
    char conversion;
    int flags, width, precision;
} FormatterLoop;

static int64_t formatter_row(void *arg, int64_t at, int64_t row, char *out) {
    FormatterLoop *l = (FormatterLoop *)arg;
    uint64_t bits;
    (void)row;
    memcpy(&bits, l->values + at * 8, 8);
    return java_formatter_double(out, bits, l->conversion, l->flags, l->width, l->precision);
}

static int formatter_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    FormatterLoop *l = (FormatterLoop *)arg;
    return text_rows(l->c, l->validity, l->offset, l->n, JAVA_FMT_ROOM(l->width > 0 ? l->width : 0, l->precision > 0 ? l->precision : 6),
                     formatter_row, l, validity, offsets, null_count);
}

typedef struct {
    Ctx *c;
    const uint8_t *values, *validity;
    const int32_t *offsets; /* NULL: doubles */
    int64_t n, offset;
    int kind;
    NumberPattern pattern;
} PatternLoop;

static int64_t pattern_row(void *arg, int64_t at, int64_t row, char *out) {
    PatternLoop *l = (PatternLoop *)arg;
    int32_t begin, end;
    if (l->kind == PATTERN_KIND_DOUBLE) {
        uint64_t bits;
        memcpy(&bits, l->values + at * 8, 8);
        return format_pattern_double(out, &l->pattern, bits);
    }
    begin = l->offsets[at];
    end = l->offsets[at + 1];
    if (end - begin > 80) return fail(l->c, ERR_TOO_LARGE, "", row, "a number's text longer than 80 bytes");
    return format_pattern_text(out, &l->pattern, (const char *)l->values + begin, end - begin, l->kind == PATTERN_KIND_INTEGER);
}

static int pattern_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    PatternLoop *l = (PatternLoop *)arg;
    return text_rows(l->c, l->validity, l->offset, l->n, pattern_room(&l->pattern), pattern_row, l, validity, offsets, null_count);
}

PyDoc_STRVAR(format_number_pattern_doc,
             "format_number_pattern(kind, values, offsets, validity, offset, length, min_int, min_frac, max_frac,\n"
             "                      grouping, shift, always_point, fast, positive_prefix, positive_suffix,\n"
             "                      negative_prefix, negative_suffix) -> (null_count, validity, offsets, data)\n\n"
             "Spark's format_number(x, pattern) of each value of an Arrow array's buffers, java.text.DecimalFormat's\n"
             "text: kind 0 doubles (values the float64 data, offsets None), 1 decimals and 2 integers as their\n"
             "plain text (a string array's data and int32 offsets). The pattern as applyPattern reads it: minimum\n"
             "integer digits, minimum and maximum fraction digits, grouping size (0: none), the multiplier's\n"
             "power of ten (0, 2 for %, 3 for per mille), whether the point is always shown, whether a double\n"
             "takes DecimalFormat's fast path (at most Integer.MAX_VALUE, 3 fraction digits), and the four\n"
             "affixes (UTF-8 bytes). The three buffers returned are pyarrow buffers of a string array.");

static PyObject *py_format_number_pattern(PyObject *self, PyObject *args) {
    PyObject *values_obj, *offsets_obj, *validity_obj, *result = NULL;
    Py_buffer views[3]; /* values (a double's, or a string's data), offsets (strings only), validity */
    int held[3] = {0, 0, 0};
    const char *affix[4];
    Py_ssize_t affix_len[4];
    long long offset, length;
    int kind;
    Ctx c;
    PatternLoop loop;
    (void)self;
    memset(&loop, 0, sizeof loop);
    if (!PyArg_ParseTuple(args, "iOOOLLiiiiiiiy#y#y#y#", &kind, &values_obj, &offsets_obj, &validity_obj, &offset, &length,
                          &loop.pattern.min_int, &loop.pattern.min_frac, &loop.pattern.max_frac, &loop.pattern.grouping,
                          &loop.pattern.shift, &loop.pattern.always_point, &loop.pattern.fast, &affix[0], &affix_len[0], &affix[1], &affix_len[1],
                          &affix[2], &affix_len[2], &affix[3], &affix_len[3]))
        return NULL;
    if (kind < 0 || kind > 2 || offset < 0 || length < 0 || (kind != PATTERN_KIND_DOUBLE) != (offsets_obj != Py_None) ||
        loop.pattern.min_int < 0 || loop.pattern.min_int > 1000 || loop.pattern.min_frac < 0 ||
        loop.pattern.max_frac < loop.pattern.min_frac || loop.pattern.max_frac > DOUBLE_FRACTION_DIGITS || loop.pattern.grouping < 0 ||
        loop.pattern.grouping > 127 || (loop.pattern.shift != 0 && loop.pattern.shift != 2 && loop.pattern.shift != 3) ||
        (loop.pattern.fast && (loop.pattern.max_frac != 3 || loop.pattern.min_frac != 0 || loop.pattern.min_int != 1 ||
                               loop.pattern.grouping != 3 || loop.pattern.shift != 0 || loop.pattern.always_point))) {
        PyErr_SetString(PyExc_ValueError, "format_number_pattern: a kind, slice or pattern out of range");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        if (affix_len[i] > 4096) {
            PyErr_SetString(PyExc_ValueError, "format_number_pattern: an affix over 4096 bytes");
            return NULL;
        }
        loop.pattern.affix[i] = affix[i];
        loop.pattern.affix_len[i] = (int)affix_len[i];
    }
    {
        PyObject *const objs[3] = {values_obj, offsets_obj, validity_obj};
        const int64_t needed[3] = {0, 0, 0}; /* checked below, together */
        if (hold_buffers("format_number_pattern", objs, views, held, needed, 3, 0x6u, NULL) < 0) goto done;
    }
    if ((!held[1] && (offset + length) * 8 > views[0].len) || (held[1] && (offset + length + 1) * 4 > views[1].len) ||
        (held[2] && (offset + length + 7) / 8 > views[2].len)) {
        PyErr_SetString(PyExc_ValueError, "format_number_pattern: the buffers are shorter than offset + length");
        goto done;
    }
    if (held[1] && length > 0) {
        const int32_t *o = (const int32_t *)views[1].buf;
        for (int64_t i = offset; i <= offset + length; i++) {
            if (o[i] < 0 || o[i] > views[0].len || (i > offset && o[i] < o[i - 1])) {
                PyErr_SetString(PyExc_ValueError, "format_number_pattern: offsets out of the data");
                goto done;
            }
        }
    }
    ctx_init(&c);
    loop.c = &c;
    loop.values = (const uint8_t *)views[0].buf;
    loop.offsets = held[1] ? (const int32_t *)views[1].buf : NULL;
    loop.validity = held[2] ? (const uint8_t *)views[2].buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.kind = kind;
    result = run_into_binary(&c, length, pattern_loop, &loop);
    ctx_free(&c);
done:
    release_buffers(views, held, 3);
    return result;
}

PyDoc_STRVAR(format_java_formatter_doc,
             "format_java_formatter(values, validity, offset, length, conversion, flags, width, precision)\n"
             "    -> (null_count, validity, offsets, data)\n\n"
             "Each double of an Arrow float64 array's buffers as java.util.Formatter (Locale.US) prints\n"
             "it under one specifier: conversion one of 'e', 'E', 'f', 'g', 'G'; flags the bits '-' 1,\n"
             "'+' 2, ' ' 4, '0' 8, ',' 16, '(' 32, '#' 64 (combinations Java accepts); width and precision\n"
             "-1 for none, at most 10000. NULL where the value is NULL. The three buffers returned are\n"
             "pyarrow buffers of a string array (validity is None when no row is null).");

static PyObject *py_format_java_formatter(PyObject *self, PyObject *args) {
    PyObject *values_obj, *validity_obj, *result = NULL;
    Py_buffer views[2]; /* values, validity */
    int held[2] = {0, 0};
    long long offset, length;
    int conversion, flags, width, precision;
    Ctx c;
    FormatterLoop loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOLLCiii", &values_obj, &validity_obj, &offset, &length, &conversion, &flags, &width, &precision))
        return NULL;
    if (offset < 0 || length < 0 || conversion <= 0 || conversion > 127 || strchr("eEfgG", conversion) == NULL || flags < 0 || flags > 127 ||
        width < -1 || width > JAVA_FMT_LIMIT || precision < -1 || precision > JAVA_FMT_LIMIT) {
        PyErr_SetString(PyExc_ValueError, "format_java_formatter: a conversion of eEfgG, flags below 128, width and precision from -1 to 10000");
        return NULL;
    }
    {
        PyObject *const objs[2] = {values_obj, validity_obj};
        const int64_t needed[2] = {0, 0}; /* checked below, together */
        if (hold_buffers("format_java_formatter", objs, views, held, needed, 2, 0x2u, NULL) < 0) goto done;
    }
    if ((offset + length) * 8 > views[0].len || (held[1] && (offset + length + 7) / 8 > views[1].len)) {
        PyErr_SetString(PyExc_ValueError, "format_java_formatter: the buffers are shorter than offset + length");
        goto done;
    }
    ctx_init(&c);
    loop.c = &c;
    loop.values = (const uint8_t *)views[0].buf;
    loop.validity = held[1] ? (const uint8_t *)views[1].buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.conversion = (char)conversion;
    loop.flags = flags;
    loop.width = width;
    loop.precision = precision;
    result = run_into_binary(&c, length, formatter_loop, &loop);
    ctx_free(&c);
done:
    release_buffers(views, held, 2);
    return result;
}

/* ---- get_json_object (codec/json_path.c) --------------------------------------------------- */
/* Row at's bytes in an Arrow string (width 4) or large_string (width 8) array's offsets. */
static void string_bounds(const uint8_t *offsets, int width, int64_t at, int64_t *start, int64_t *end) {
    if (width == 4) {
        int32_t a, b;
        memcpy(&a, offsets + at * 4, 4);
        memcpy(&b, offsets + at * 4 + 4, 4);
        *start = a;
        *end = b;
    } else {
        memcpy(start, offsets + at * 8, 8);
        memcpy(end, offsets + at * 8 + 8, 8);
    }
}

/* The buffers of an Arrow string (width 4) or large_string (width 8) array, validity absent when
 * validity_obj is None; 0, or -1 with the exception set (nothing held). */
typedef struct {
    Py_buffer offsets, data, validity;
    int has_validity;
} StringBuffers;

static int open_string_buffers(StringBuffers *b, PyObject *offsets_obj, PyObject *data_obj, PyObject *validity_obj, long long offset,
                               long long length, int width, const char *function) {
    b->has_validity = 0;
    if (PyObject_GetBuffer(offsets_obj, &b->offsets, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(data_obj, &b->data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&b->offsets);
        return -1;
    }
    if (validity_obj != Py_None) {
        if (PyObject_GetBuffer(validity_obj, &b->validity, PyBUF_SIMPLE) < 0) goto failed;
        b->has_validity = 1;
    }
    if ((offset + length + 1) * width > b->offsets.len || (b->has_validity && (offset + length + 7) / 8 > b->validity.len)) {
        PyErr_Format(PyExc_ValueError, "%s: the buffers are shorter than offset + length", function);
        goto failed;
    }
    return 0;
failed:
    PyBuffer_Release(&b->offsets);
    PyBuffer_Release(&b->data);
    if (b->has_validity) PyBuffer_Release(&b->validity);
    return -1;
}

static void close_string_buffers(StringBuffers *b) {
    PyBuffer_Release(&b->offsets);
    PyBuffer_Release(&b->data);
    if (b->has_validity) PyBuffer_Release(&b->validity);
}

/* A string kernel's opening: its width, offset and length checked, its buffers opened and its
 * context cleared; 0, or -1 with the exception set (nothing held). */
static int open_string_rows(StringBuffers *b, Ctx *c, PyObject *offsets_obj, PyObject *data_obj, PyObject *validity_obj,
                            long long offset, long long length, int width, const char *function) {
    if ((width != 4 && width != 8) || offset < 0 || length < 0) {
        PyErr_Format(PyExc_ValueError, "%s: width must be 4 or 8, offset and length non-negative", function);
        return -1;
    }
    if (open_string_buffers(b, offsets_obj, data_obj, validity_obj, offset, length, width, function) < 0) return -1;
    ctx_init(c);
    return 0;
}

/* Append text as row's value (valid); on failure its buffer is freed. */
static int append_text(Ctx *c, JsonText *text, uint8_t *validity, int64_t row) {
    if (text->length > MAX_BINARY_ARRAY_BYTES - c->out_len || reserve(c, text->length) < 0) {
        free(text->data);
        return c->err != ERR_NONE ? -1 : fail(c, ERR_TOO_LARGE, "", -1, "the text exceeds a string array's 2 GiB");
    }
    memcpy(c->out + c->out_len, text->data, (size_t)text->length);
    c->out_len += text->length;
    validity[row >> 3] |= (uint8_t)(1u << (row & 7));
    return 0;
}

typedef struct {
    Ctx *c;
    const uint8_t *offsets, *data, *validity;
    int64_t n, offset;
    int width; /* of the offsets: 4 string, 8 large_string */
    const JsonPathStep *steps;
    int nsteps;
    int shape; /* -1: get_json_object along steps; 0: json_array_length; 1: json_object_keys */
} JsonPathLoop;

static int json_path_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    JsonPathLoop *l = (JsonPathLoop *)arg;
    Ctx *c = l->c;
    JsonText text = {NULL, 0, 0};
    offsets[0] = 0;
    for (int64_t row = 0; row < l->n; row++) {
        int64_t at = l->offset + row, start, end;
        int found = JSON_PATH_NULL;
        if (l->validity == NULL || bit(l->validity, at)) {
            string_bounds(l->offsets, l->width, at, &start, &end);
            found = l->shape >= 0 ? spark_json_shape(l->data + start, end - start, l->shape, &text)
                                  : spark_get_json_object(l->data + start, end - start, l->steps, l->nsteps, &text, format_java_double);
            if (found == JSON_PATH_NOMEM) {
                free(text.data);
                return nomem(c);
            }
        }
        if (found == JSON_PATH_FOUND) {
            if (append_text(c, &text, validity, row) < 0) return -1;
        } else {
            (*null_count)++;
        }
        offsets[row + 1] = (int32_t)c->out_len;
    }
    free(text.data);
    return 0;
}

/* json_path_loop over the rows of a string array's buffers (shape: see JsonPathLoop); the
 * result's buffers, or NULL with the exception set. */
static PyObject *run_json_path(PyObject *offsets_obj, PyObject *data_obj, PyObject *validity_obj, long long offset, long long length,
                               int width, const JsonPathStep *steps, int nsteps, int shape, const char *function) {
    StringBuffers buffers;
    Ctx c;
    JsonPathLoop loop;
    PyObject *result;
    if (open_string_rows(&buffers, &c, offsets_obj, data_obj, validity_obj, offset, length, width, function) < 0) return NULL;
    memset(&loop, 0, sizeof loop);
    loop.c = &c;
    loop.offsets = (const uint8_t *)buffers.offsets.buf;
    loop.data = (const uint8_t *)buffers.data.buf;
    loop.validity = buffers.has_validity ? (const uint8_t *)buffers.validity.buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.width = width;
    loop.steps = steps;
    loop.nsteps = nsteps;
    loop.shape = shape;
    result = run_into_binary(&c, length, json_path_loop, &loop);
    ctx_free(&c);
    close_string_buffers(&buffers);
    return result;
}

PyDoc_STRVAR(get_json_object_doc,
             "get_json_object(offsets, data, validity, offset, length, width, steps[, last]) -> (null_count, validity, offsets, data)\n\n"
             "Spark's get_json_object of every row of an Arrow string (width 4) or large_string (width 8)\n"
             "array, whose buffers these are (validity None when no row is null), along a path of steps:\n"
             "a key (bytes, UTF-8) or an array index (a non-negative int). Returns the buffers of a string\n"
             "array, null where Spark's answer is NULL (see codec/json_path.c). With last true, a key takes its last\n"
             "match whose value is not null, as Spark's json_tuple does, rather than its first.");

static PyObject *py_get_json_object(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *validity_obj, *steps_obj, *result = NULL;
    long long offset, length;
    int width, last = 0;
    Py_ssize_t nsteps;
    JsonPathStep *steps = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLLiO!|p", &offsets_obj, &data_obj, &validity_obj, &offset, &length, &width, &PyTuple_Type,
                          &steps_obj, &last))
        return NULL;
    nsteps = PyTuple_GET_SIZE(steps_obj);
    steps = (JsonPathStep *)calloc((size_t)nsteps + 1, sizeof(JsonPathStep));
    if (steps == NULL) return PyErr_NoMemory();
    for (Py_ssize_t k = 0; k < nsteps; k++) {
        PyObject *step = PyTuple_GET_ITEM(steps_obj, k);
        if (PyBytes_Check(step)) {
            steps[k].name = (const uint8_t *)PyBytes_AS_STRING(step);
            steps[k].name_length = PyBytes_GET_SIZE(step);
            steps[k].last = last;
        } else if (PyLong_Check(step)) {
            steps[k].index = PyLong_AsLongLong(step);
            if (steps[k].index < 0) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "get_json_object: an index must be non-negative");
                free(steps);
                return NULL;
            }
        } else {
            PyErr_SetString(PyExc_TypeError, "get_json_object: a step is a key (bytes) or an index (int)");
            free(steps);
            return NULL;
        }
    }
    result = run_json_path(offsets_obj, data_obj, validity_obj, offset, length, width, steps, (int)nsteps, -1, "get_json_object");
    free(steps);
    return result;
}


PyDoc_STRVAR(json_shape_doc,
             "json_shape(offsets, data, validity, offset, length, width, keys) -> (null_count, validity, offsets, data)\n\n"
             "Spark's json_array_length (keys false: the count in decimal) or json_object_keys (keys true: the\n"
             "root object's field names as a JSON array of strings) of every row of an Arrow string (width 4)\n"
             "or large_string (width 8) array, whose buffers these are (validity None when no row is null).\n"
             "Returns the buffers of a string array, null where Spark's answer is NULL (see codec/json_path.c).");

static PyObject *py_json_shape(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *validity_obj;
    long long offset, length;
    int width, keys;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLLip", &offsets_obj, &data_obj, &validity_obj, &offset, &length, &width, &keys)) return NULL;
    return run_json_path(offsets_obj, data_obj, validity_obj, offset, length, width, NULL, 0, keys, "json_shape");
}

/* ---- parse_url (codec/spark_url.c) --------------------------------------------------------- */
typedef struct {
    Ctx *c;
    const uint8_t *offsets, *data, *validity;
    int64_t n, offset;
    int width; /* of the offsets: 4 string, 8 large_string */
    int part;  /* URL_HOST ... URL_USERINFO; any other: NULL on every row */
    int64_t first_invalid; /* the first row new URI(url) throws on, or -1 */
} UrlLoop;

static int append_span(Ctx *c, const uint8_t *text, UrlSpan s) {
    int64_t length = s.end - s.start;
    if (length > MAX_BINARY_ARRAY_BYTES - c->out_len) return fail(c, ERR_TOO_LARGE, "", -1, "the text exceeds a string array's 2 GiB");
    if (reserve(c, length) < 0) return -1;
    memcpy(c->out + c->out_len, text + s.start, (size_t)length);
    c->out_len += length;
    return 0;
}

static int url_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    UrlLoop *l = (UrlLoop *)arg;
    Ctx *c = l->c;
    static const UrlSpan question = {0, 1};
    offsets[0] = 0;
    for (int64_t row = 0; row < l->n; row++) {
        int64_t at = l->offset + row, start, end;
        UrlParts parts;
        UrlSpan found = {-1, -1};
        if (l->validity == NULL || bit(l->validity, at)) {
            string_bounds(l->offsets, l->width, at, &start, &end);
            if (!spark_parse_url(l->data + start, end - start, &parts)) {
                if (l->first_invalid < 0) l->first_invalid = row;
            } else {
                const UrlSpan by_part[] = {parts.host, parts.path, parts.query, parts.fragment, parts.scheme, parts.path,
                                           parts.authority, parts.user_info};
                if (l->part >= 0 && l->part < (int)(sizeof by_part / sizeof by_part[0])) found = by_part[l->part];
                if (found.start >= 0) {
                    if (append_span(c, l->data + start, found) < 0) return -1;
                    /* FILE: the path, and '?' and the query where there is one */
                    if (l->part == URL_FILE && parts.query.start >= 0 &&
                        (append_span(c, (const uint8_t *)"?", question) < 0 || append_span(c, l->data + start, parts.query) < 0))
                        return -1;
                    validity[row >> 3] |= (uint8_t)(1u << (row & 7));
                }
            }
        }
        if (found.start < 0) (*null_count)++;
        offsets[row + 1] = (int32_t)c->out_len;
    }
    return 0;
}

PyDoc_STRVAR(parse_url_doc,
             "parse_url(offsets, data, validity, offset, length, width, part) -> (null_count, validity, offsets, data, first_invalid)\n\n"
             "Spark's parse_url(url, part) of every row of an Arrow string (width 4) or large_string (width 8)\n"
             "array, whose buffers these are (validity None when no row is null): the URL parsed as\n"
             "java.net.URI(String) parses it (see codec/spark_url.c), part numbered as spark_url.h numbers\n"
             "them (another number: NULL on every row). Returns the buffers of a string array, null where\n"
             "Spark's answer is NULL or the URL does not parse, and the first row that does not (or -1).");

static PyObject *py_parse_url(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *validity_obj, *result = NULL, *answer;
    StringBuffers buffers;
    long long offset, length;
    int width, part;
    Ctx c;
    UrlLoop loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLLii", &offsets_obj, &data_obj, &validity_obj, &offset, &length, &width, &part)) return NULL;
    if (open_string_rows(&buffers, &c, offsets_obj, data_obj, validity_obj, offset, length, width, "parse_url") < 0) return NULL;
    memset(&loop, 0, sizeof loop);
    loop.c = &c;
    loop.offsets = (const uint8_t *)buffers.offsets.buf;
    loop.data = (const uint8_t *)buffers.data.buf;
    loop.validity = buffers.has_validity ? (const uint8_t *)buffers.validity.buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.width = width;
    loop.part = part;
    loop.first_invalid = -1;
    answer = run_into_binary(&c, length, url_loop, &loop);
    if (answer != NULL) result = Py_BuildValue("(NL)", answer, (long long)loop.first_invalid);
    ctx_free(&c);
    close_string_buffers(&buffers);
    return result;
}

/* ---- from_json (codec/from_json.c) ---------------------------------------------------------- */
typedef struct {
    Ctx *c;
    const uint8_t *offsets, *data, *validity;
    int64_t n, offset;
    int width; /* of the offsets: 4 string, 8 large_string */
    const FromJsonType *types;
    int64_t bad_rows, first_bad_row;
} FromJsonLoop;

static int from_json_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    FromJsonLoop *l = (FromJsonLoop *)arg;
    Ctx *c = l->c;
    JsonText text = {NULL, 0, 0};
    offsets[0] = 0;
    for (int64_t row = 0; row < l->n; row++) {
        int64_t at = l->offset + row, start, end;
        int status = FROM_JSON_NULL;
        if (l->validity == NULL || bit(l->validity, at)) {
            string_bounds(l->offsets, l->width, at, &start, &end);
            status = spark_from_json(l->data + start, end - start, l->types, &text, format_java_double);
            if (status == FROM_JSON_NOMEM) {
                free(text.data);
                return nomem(c);
            }
            if (status == FROM_JSON_UNSUPPORTED) {
                free(text.data);
                c->row = row;
                return fail(c, ERR_UNSUPPORTED, "", -1,
                            "a map with a key twice (DuckDB's maps hold a key once) or a decimal string with non-ASCII characters");
            }
            if (status == FROM_JSON_BAD_VALUE || status == FROM_JSON_BAD_NULL) {
                if (l->bad_rows++ == 0) l->first_bad_row = row;
            }
        }
        if (status == FROM_JSON_VALUE || status == FROM_JSON_BAD_VALUE) {
            if (append_text(c, &text, validity, row) < 0) return -1;
        } else {
            (*null_count)++;
        }
        offsets[row + 1] = (int32_t)c->out_len;
    }
    free(text.data);
    return 0;
}

PyDoc_STRVAR(from_json_doc,
             "from_json(offsets, data, validity, offset, length, width, schema) -> (null_count, validity, offsets, data, bad_rows, first_bad_row)\n\n"
             "Spark's from_json (PERMISSIVE) of every row of an Arrow string (width 4) or large_string (width 8)\n"
             "array, whose buffers these are (validity None when no row is null), to the schema: a tuple of\n"
             "nodes (kind, precision, scale, name, key, children), the root first, children a tuple of node\n"
             "indexes (see codec/from_json.h). Returns the buffers of a string array of JSON texts DuckDB casts\n"
             "to the schema's type, null where Spark's answer is NULL, with the number of Spark's bad records\n"
             "(which FAILFAST refuses) and the first one's row (-1 when none).");

static PyObject *py_from_json(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *validity_obj, *schema_obj, *result = NULL, *buffers;
    StringBuffers string_buffers;
    long long offset, length;
    int width, *children = NULL, nchildren = 0;
    Py_ssize_t ntypes;
    FromJsonType *types = NULL;
    Ctx c;
    FromJsonLoop loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLLiO!", &offsets_obj, &data_obj, &validity_obj, &offset, &length, &width, &PyTuple_Type,
                          &schema_obj))
        return NULL;
    if ((width != 4 && width != 8) || offset < 0 || length < 0) {
        PyErr_SetString(PyExc_ValueError, "from_json: width must be 4 or 8, offset and length non-negative");
        return NULL;
    }
    ntypes = PyTuple_GET_SIZE(schema_obj);
    types = (FromJsonType *)calloc((size_t)ntypes + 1, sizeof(FromJsonType));
    for (Py_ssize_t k = 0; types != NULL && k < ntypes; k++) nchildren += (int)PyTuple_Size(PyTuple_GetItem(PyTuple_GET_ITEM(schema_obj, k), 5));
    children = (int *)calloc((size_t)nchildren + 1, sizeof(int));
    if (types == NULL || children == NULL || ntypes == 0) {
        free(types);
        free(children);
        if (ntypes == 0) PyErr_SetString(PyExc_ValueError, "from_json: an empty schema");
        return ntypes == 0 ? NULL : PyErr_NoMemory();
    }
    nchildren = 0;
    for (Py_ssize_t k = 0; k < ntypes; k++) {
        PyObject *node = PyTuple_GET_ITEM(schema_obj, k), *name, *key, *kids;
        if (!PyArg_ParseTuple(node, "iiiSSO!", &types[k].kind, &types[k].precision, &types[k].scale, &name, &key, &PyTuple_Type, &kids))
            goto bad_schema;
        types[k].name = (const uint8_t *)PyBytes_AS_STRING(name);
        types[k].name_length = PyBytes_GET_SIZE(name);
        types[k].key = (const uint8_t *)PyBytes_AS_STRING(key);
        types[k].key_length = PyBytes_GET_SIZE(key);
        types[k].children = children + nchildren;
        types[k].nchildren = (int)PyTuple_GET_SIZE(kids);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kids); j++) {
            long child = PyLong_AsLong(PyTuple_GET_ITEM(kids, j));
            if (child <= k || child >= ntypes) {
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "from_json: a child must come after its parent");
                goto bad_schema;
            }
            children[nchildren++] = (int)child;
        }
        if (types[k].kind < FJ_BOOLEAN || types[k].kind > FJ_MAP || ((types[k].kind == FJ_ARRAY || types[k].kind == FJ_MAP) && types[k].nchildren != 1) ||
            (types[k].kind == FJ_DECIMAL && (types[k].precision < 1 || types[k].precision > 38 || types[k].scale < 0 || types[k].scale > types[k].precision))) {
            PyErr_SetString(PyExc_ValueError, "from_json: a malformed schema node");
            goto bad_schema;
        }
    }
    if (open_string_buffers(&string_buffers, offsets_obj, data_obj, validity_obj, offset, length, width, "from_json") < 0) goto bad_schema;
    ctx_init(&c);
    loop.c = &c;
    loop.offsets = (const uint8_t *)string_buffers.offsets.buf;
    loop.data = (const uint8_t *)string_buffers.data.buf;
    loop.validity = string_buffers.has_validity ? (const uint8_t *)string_buffers.validity.buf : NULL;
    loop.n = length;
    loop.offset = offset;
    loop.width = width;
    loop.types = types;
    loop.bad_rows = 0;
    loop.first_bad_row = -1;
    buffers = run_into_binary(&c, length, from_json_loop, &loop);
    ctx_free(&c);
    if (buffers != NULL) {
        result = Py_BuildValue("(OOOOLL)", PyTuple_GET_ITEM(buffers, 0), PyTuple_GET_ITEM(buffers, 1), PyTuple_GET_ITEM(buffers, 2),
                               PyTuple_GET_ITEM(buffers, 3), (long long)loop.bad_rows, (long long)loop.first_bad_row);
        Py_DECREF(buffers);
    }
    close_string_buffers(&string_buffers);
bad_schema:
    free(types);
    free(children);
    return result;
}

/* ---- Spark's transcendental functions (codec/strict_math.c) -------------------------------- */
PyDoc_STRVAR(strict_math_doc,
             "strict_math(name, x, x_validity, x_offset, y, y_validity, y_offset, length) -> (null_count, validity, values)\n\n"
             "Spark's function `name` (ln, log, log10, log2, log1p, exp, expm1, pow, sinh, cosh, tanh, cbrt)\n"
             "of every row of Arrow double arrays, bit for bit as Java's StrictMath computes it, NULL where\n"
             "Spark's is. x and y are the values buffers, x_validity and y_validity the validity buffers\n"
             "(None when no row is null), the offsets those of the arrays; y is None for a function of one\n"
             "argument. Returns the buffers of the double array of results.");

static int strict_buffer(PyObject *obj, Py_buffer *view, int64_t needed, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    if (view->len < needed) {
        PyErr_Format(PyExc_ValueError, "strict_math: the %s buffer is shorter than offset + length", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *py_strict_math(PyObject *self, PyObject *args) {
    const char *name;
    PyObject *x_obj, *xv_obj, *y_obj, *yv_obj, *values = NULL, *validity = NULL, *result = NULL;
    long long x_offset, y_offset, length;
    Py_buffer views[4];
    int held[4] = {0, 0, 0, 0}, arity;
    StrictColumn x, y;
    int64_t null_count = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "sOOLOOLL", &name, &x_obj, &xv_obj, &x_offset, &y_obj, &yv_obj, &y_offset, &length))
        return NULL;
    arity = strict_math_arity(name);
    if (arity == 0) {
        PyErr_Format(PyExc_ValueError, "strict_math: no function %s", name);
        return NULL;
    }
    if (x_offset < 0 || y_offset < 0 || length < 0 || (arity == 2) != (y_obj != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "strict_math: offsets and length must be non-negative, y given for two arguments only");
        return NULL;
    }
    if (strict_buffer(x_obj, &views[0], (x_offset + length) * 8, "x") < 0) goto done;
    held[0] = 1;
    if (xv_obj != Py_None) {
        if (strict_buffer(xv_obj, &views[1], (x_offset + length + 7) / 8, "x validity") < 0) goto done;
        held[1] = 1;
    }
    if (arity == 2) {
        if (strict_buffer(y_obj, &views[2], (y_offset + length) * 8, "y") < 0) goto done;
        held[2] = 1;
        if (yv_obj != Py_None) {
            if (strict_buffer(yv_obj, &views[3], (y_offset + length + 7) / 8, "y validity") < 0) goto done;
            held[3] = 1;
        }
    }
    x.values = (const double *)views[0].buf;
    x.validity = held[1] ? (const uint8_t *)views[1].buf : NULL;
    x.offset = x_offset;
    y.values = held[2] ? (const double *)views[2].buf : NULL;
    y.validity = held[3] ? (const uint8_t *)views[3].buf : NULL;
    y.offset = y_offset;
    values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 8));
    validity = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((length + 7) / 8));
    if (values == NULL || validity == NULL) goto done;
    {
        double *out = (double *)PyBytes_AS_STRING(values);
        uint8_t *out_validity = (uint8_t *)PyBytes_AS_STRING(validity);
        Py_BEGIN_ALLOW_THREADS
        null_count = strict_math_column(name, &x, arity == 2 ? &y : NULL, length, out, out_validity);
        Py_END_ALLOW_THREADS
    }
    if (null_count < 0) {
        PyErr_Format(PyExc_ValueError, "strict_math: no function %s", name);
        goto done;
    }
    result = Py_BuildValue("LOO", (long long)null_count, null_count ? validity : Py_None, values);
done:
    Py_XDECREF(values);
    Py_XDECREF(validity);
    release_buffers(views, held, 4);
    return result;
}

/* ---- Spark's hash, xxhash64 and crc32 (codec/spark_hash.c) ---------------------------------- */
PyDoc_STRVAR(spark_hash_doc,
             "spark_hash(algorithm, kind, values, offsets, validity, offset, seeds, seed_offset, length)\n"
             "    -> (null_count, validity, out)\n\n"
             "One step of Spark's hash chain (algorithm 0: Murmur3 with int32 seeds, 1: XXH64 with int64\n"
             "seeds), crc32 (2: seeds None) or Scala's ## of collect_set's element (3: int32 seeds, the\n"
             "scales of decimals, else None) over an Arrow column whose buffers are given (kind: see\n"
             "spark_hash.h; offsets None but for bytes, validity None when no row is null). Returns the\n"
             "results' buffer, and for crc32 and ## the validity of the results (else None) and their NULL count.");

static PyObject *py_spark_hash(PyObject *self, PyObject *args) {
    int algorithm, kind;
    PyObject *objs[4], *out = NULL, *validity = NULL, *result = NULL;
    long long offset, seed_offset, length;
    Py_buffer views[4];
    int held[4] = {0, 0, 0, 0};
    int64_t nulls = 0, width;
    (void)self;
    if (!PyArg_ParseTuple(args, "iiOOOLOLL", &algorithm, &kind, &objs[0], &objs[1], &objs[2], &offset, &objs[3], &seed_offset, &length))
        return NULL;
    if (offset < 0 || seed_offset < 0 || length < 0 || algorithm < 0 || algorithm > 3 || kind < 0 || kind > 6) {
        PyErr_SetString(PyExc_ValueError, "spark_hash: bad algorithm, kind, offset or length");
        return NULL;
    }
    width = kind == 0 || kind == 2 ? 4 : kind == 6 ? 16 : 8;
    {
        /* values, offsets, validity, seeds: each may be None (checked below) */
        const int64_t needed[4] = {(kind == 4 || kind == 5) ? 0 : (offset + length) * width, (offset + length + 1) * (kind == 5 ? 8 : 4),
                                   (offset + length + 7) / 8, (seed_offset + length) * (algorithm == 1 ? 8 : 4)};
        if (hold_buffers("spark_hash", objs, views, held, needed, 4, 0xFu, NULL) < 0) goto done;
    }
    if (!held[0] || ((kind == 4 || kind == 5) != held[1]) || (algorithm < 2 && !held[3]) ||
        (algorithm == 3 && (kind == 1 || kind == 6) && !held[3])) {
        PyErr_SetString(PyExc_ValueError, "spark_hash: values, offsets (bytes only) and seeds (hashes; scales of decimals) are needed");
        goto done;
    }
    if (kind == 4 || kind == 5) { /* the last offset bounds the data */
        int64_t last;
        if (kind == 4) {
            int32_t end;
            memcpy(&end, (const uint8_t *)views[1].buf + 4 * (offset + length), 4);
            last = end;
        } else {
            memcpy(&last, (const uint8_t *)views[1].buf + 8 * (offset + length), 8);
        }
        if (last > views[0].len) {
            PyErr_SetString(PyExc_ValueError, "spark_hash: the data buffer is shorter than the offsets say");
            goto done;
        }
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * (algorithm == 1 || algorithm == 2 ? 8 : 4)));
    validity = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((length + 7) / 8));
    if (out == NULL || validity == NULL) goto done;
    {
        const uint8_t *values = (const uint8_t *)views[0].buf;
        const uint8_t *offsets = held[1] ? (const uint8_t *)views[1].buf : NULL;
        const uint8_t *valid = held[2] ? (const uint8_t *)views[2].buf : NULL;
        const uint8_t *seeds = held[3] ? (const uint8_t *)views[3].buf : NULL;
        uint8_t *target = (uint8_t *)PyBytes_AS_STRING(out), *target_validity = (uint8_t *)PyBytes_AS_STRING(validity);
        Py_BEGIN_ALLOW_THREADS
        nulls = spark_hash_column(algorithm, kind, values, offsets, valid, offset, seeds, seed_offset, length, target, target_validity);
        Py_END_ALLOW_THREADS
    }
    if (nulls < 0) {
        PyErr_SetString(PyExc_ValueError, "spark_hash: no such algorithm and kind");
        goto done;
    }
    result = Py_BuildValue("LOO", (long long)nulls, algorithm >= 2 && nulls ? validity : Py_None, out);
done:
    Py_XDECREF(out);
    Py_XDECREF(validity);
    release_buffers(views, held, 4);
    return result;
}

/* ---- Spark's approx_count_distinct (codec/spark_hll.c) ---------------------------------------- */
PyDoc_STRVAR(spark_hll_doc,
             "spark_hll(precision, starts, ends, length, hashes, validity, hash_offset, hash_length) -> out\n\n"
             "Spark's HyperLogLog++ estimate for each of `length` rows: the distinct values among the int64\n"
             "hashes from hash_offset + starts[i] to hash_offset + ends[i] (int64 buffers), those whose\n"
             "validity bit is clear (validity None: none) skipped. Returns the int64 estimates' buffer.");

static PyObject *py_spark_hll(PyObject *self, PyObject *args) {
    int precision;
    PyObject *objs[4], *out = NULL;
    long long length, hash_offset, hash_length;
    Py_buffer views[4];
    int held[4] = {0, 0, 0, 0};
    (void)self;
    if (!PyArg_ParseTuple(args, "iOOLOOLL", &precision, &objs[0], &objs[1], &length, &objs[2], &objs[3], &hash_offset, &hash_length))
        return NULL;
    if (precision < HLL_MIN_PRECISION || precision > HLL_MAX_PRECISION || length < 0 || hash_offset < 0 || hash_length < 0) {
        PyErr_SetString(PyExc_ValueError, "spark_hll: bad precision, length or offset");
        return NULL;
    }
    {
        const int64_t needed[4] = {length * 8, length * 8, (hash_offset + hash_length) * 8, (hash_offset + hash_length + 7) / 8};
        if (hold_buffers("spark_hll", objs, views, held, needed, 4, 1u << 3, "spark_hll: the starts, ends and hashes are needed") < 0)
            goto done;
    }
    {
        const int64_t *starts = (const int64_t *)views[0].buf, *ends = (const int64_t *)views[1].buf;
        int64_t i;
        for (i = 0; i < length; i++) {
            if (starts[i] < 0 || starts[i] > ends[i] || ends[i] > hash_length) {
                PyErr_SetString(PyExc_ValueError, "spark_hll: a row's hashes lie outside the hashes given");
                goto done;
            }
        }
        out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 8));
        if (out == NULL) goto done;
        if (spark_hll_estimates(precision, starts, ends, length, (const uint8_t *)views[2].buf,
                                held[3] ? (const uint8_t *)views[3].buf : NULL, hash_offset, (int64_t *)PyBytes_AS_STRING(out)) < 0) {
            Py_CLEAR(out);
            PyErr_NoMemory();
        }
    }
done:
    release_buffers(views, held, 4);
    return out;
}

/* ---- Spark's conv (codec/spark_conv.c) ----------------------------------------------------- */
/* The bytes of row `row` of an Arrow string array (offsets of `width` 4 or 8 bytes): 0, or -1
 * where its offsets point outside the `data_length` bytes of data. */
static int string_row_bounds(const uint8_t *offsets, int width, int64_t row, Py_ssize_t data_length, int64_t *begin, int64_t *end) {
    if (width == 4) {
        int32_t a, b;
        memcpy(&a, offsets + 4 * row, 4);
        memcpy(&b, offsets + 4 * (row + 1), 4);
        *begin = a, *end = b;
    } else {
        memcpy(begin, offsets + 8 * row, 8);
        memcpy(end, offsets + 8 * (row + 1), 8);
    }
    return *begin < 0 || *end < *begin || *end > data_length ? -1 : 0;
}

PyDoc_STRVAR(spark_conv_doc,
             "spark_conv(offsets, data, validity, offset, offset_width, from_values, from_validity, from_offset,\n"
             "           to_values, to_validity, to_offset, length) -> (overflow_row, validity, offsets, data)\n\n"
             "Spark's conv of every row of an Arrow string array (offset_width 4 or 8) from the int32 bases\n"
             "from_values to to_values (validity buffers None where no row is null). Returns the buffers of a\n"
             "string array (int32 offsets; validity None when no row is null), and the first row where Spark\n"
             "raises ARITHMETIC_OVERFLOW (-1: none; the buffers are then None).");

static PyObject *py_spark_conv(PyObject *self, PyObject *args) {
    PyObject *objs[7], *result = NULL;
    long long offset, from_offset, to_offset, length;
    int width;
    Py_buffer views[7];
    int held[7] = {0, 0, 0, 0, 0, 0, 0};
    int64_t i, overflow = -1;
    StringColumn column = {0};
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLiOOLOOLL", &objs[0], &objs[1], &objs[2], &offset, &width, &objs[3], &objs[4], &from_offset,
                          &objs[5], &objs[6], &to_offset, &length))
        return NULL;
    if (offset < 0 || from_offset < 0 || to_offset < 0 || length < 0 || (width != 4 && width != 8)) {
        PyErr_SetString(PyExc_ValueError, "spark_conv: bad offsets, length or offset width");
        return NULL;
    }
    {
        /* offsets, data, validity, from bases and their validity, to bases and their validity */
        const int64_t needed[7] = {(offset + length + 1) * width, 0, (offset + length + 7) / 8, (from_offset + length) * 4,
                                   (from_offset + length + 7) / 8, (to_offset + length) * 4, (to_offset + length + 7) / 8};
        if (hold_buffers("spark_conv", objs, views, held, needed, 7, 1u << 2 | 1u << 4 | 1u << 6,
                         "spark_conv: the offsets, data and bases are needed") < 0)
            goto done;
    }
    if (string_column_open(&column, length, length * SPARK_CONV_MAX_OUTPUT + 1) < 0) goto done;
    {
        const uint8_t *in_offsets = (const uint8_t *)views[0].buf, *in_data = (const uint8_t *)views[1].buf;
        const uint8_t *in_valid = held[2] ? (const uint8_t *)views[2].buf : NULL;
        const int32_t *from = (const int32_t *)views[3].buf, *to = (const int32_t *)views[5].buf;
        const uint8_t *from_valid = held[4] ? (const uint8_t *)views[4].buf : NULL;
        const uint8_t *to_valid = held[6] ? (const uint8_t *)views[6].buf : NULL;
        Py_ssize_t data_length = views[1].len;
        for (i = 0; i < length; i++) {
            int64_t row = offset + i, begin, end;
            int written = SPARK_CONV_NULL;
            int present = (in_valid == NULL || ((in_valid[row >> 3] >> (row & 7)) & 1))
                          && (from_valid == NULL || ((from_valid[(from_offset + i) >> 3] >> ((from_offset + i) & 7)) & 1))
                          && (to_valid == NULL || ((to_valid[(to_offset + i) >> 3] >> ((to_offset + i) & 7)) & 1));
            if (present) {
                if (string_row_bounds(in_offsets, width, row, data_length, &begin, &end) < 0) {
                    PyErr_SetString(PyExc_ValueError, "spark_conv: the offsets point past the data");
                    goto done;
                }
                written = spark_conv(in_data + begin, end - begin, from[from_offset + i], to[to_offset + i], column.out + column.used);
            }
            if (written == SPARK_CONV_OVERFLOW) {
                overflow = i;
                break;
            }
            string_column_row(&column, i, written);
        }
    }
    result = string_column_result(&column, overflow);
done:
    string_column_close(&column);
    release_buffers(views, held, 7);
    return result;
}

/* ---- Spark's number formats (codec/spark_number_format.c) ------------------------------------ */
PyDoc_STRVAR(spark_number_format_doc,
             "spark_number_format(parse, tokens, first, second, row_room, mismatch_null, offsets, data, validity,\n"
             "                    offset, offset_width, length) -> (mismatch_row, validity, offsets, data)\n\n"
             "Every row of an Arrow string array (offset_width 4 or 8) read by the number format `tokens`\n"
             "(int32 pairs, see spark_number_format.h) with parse true (to_number: `first` is the scale), or\n"
             "a decimal's plain text formatted by it with parse false (to_char: `first` and `second` the\n"
             "format's digits before and after its point). `row_room` bounds one answer's bytes. Returns\n"
             "the buffers of a string array (int32 offsets; validity None when no row is null) and the\n"
             "first row that does not match (-1: none; the buffers are then None), or NULL there with\n"
             "mismatch_null.");

static PyObject *py_spark_number_format(PyObject *self, PyObject *args) {
    PyObject *objs[4], *result = NULL;
    long long first, second, row_room, offset, length;
    int parse, mismatch_null, width;
    Py_buffer views[4];
    int held[4] = {0, 0, 0, 0};
    int64_t i, mismatch = -1, count;
    StringColumn column = {0};
    (void)self;
    if (!PyArg_ParseTuple(args, "pOLLLpOOOLiL", &parse, &objs[0], &first, &second, &row_room, &mismatch_null, &objs[1], &objs[2],
                          &objs[3], &offset, &width, &length))
        return NULL;
    if (offset < 0 || length < 0 || row_room < 1 || (width != 4 && width != 8)) {
        PyErr_SetString(PyExc_ValueError, "spark_number_format: bad offsets, length, room or offset width");
        return NULL;
    }
    {
        const int64_t needed[4] = {0, (offset + length + 1) * width, 0, (offset + length + 7) / 8}; /* tokens, offsets, data, validity */
        if (hold_buffers("spark_number_format", objs, views, held, needed, 4, 1u << 3,
                         "spark_number_format: the tokens, offsets and data are needed") < 0)
            goto done;
    }
    count = (int64_t)views[0].len / 8;
    if (string_column_open(&column, length, length * row_room + 1) < 0) goto done;
    {
        const int32_t *tokens = (const int32_t *)views[0].buf;
        const uint8_t *in_offsets = (const uint8_t *)views[1].buf, *in_data = (const uint8_t *)views[2].buf;
        const uint8_t *in_valid = held[3] ? (const uint8_t *)views[3].buf : NULL;
        Py_ssize_t data_length = views[2].len;
        for (i = 0; i < length; i++) {
            int64_t row = offset + i, begin, end, written = -1;
            uint8_t *out = column.out + column.used;
            if (in_valid == NULL || ((in_valid[row >> 3] >> (row & 7)) & 1)) {
                if (string_row_bounds(in_offsets, width, row, data_length, &begin, &end) < 0) {
                    PyErr_SetString(PyExc_ValueError, "spark_number_format: the offsets point past the data");
                    goto done;
                }
                written = parse ? spark_parse_number(tokens, count, first, in_data + begin, end - begin, out)
                                : spark_format_number(tokens, count, first, second, in_data + begin, end - begin, out);
                if (written == SPARK_NUMBER_FORMAT_MISMATCH && !mismatch_null) {
                    mismatch = i;
                    break;
                }
            }
            string_column_row(&column, i, written);
        }
    }
    result = string_column_result(&column, mismatch);
done:
    string_column_close(&column);
    release_buffers(views, held, 4);
    return result;
}

/* ---- Spark's parsing of strings by a datetime pattern (codec/spark_datetime_format.c) ------- */
PyDoc_STRVAR(parse_formatted_doc,
             "parse_formatted(steps, literals, offsets, data, validity, offset, length, offset_width)\n"
             "    -> (status, local_seconds, micros, offset_seconds)\n\n"
             "Every string of an Arrow string array (as parse_datetimes takes it) parsed by the program\n"
             "`steps` (int32 sextets, see spark_datetime_format.h; `literals` the bytes its literal steps\n"
             "point into). Returns bytes: a status per row (uint8, FMT_ROW_*), the local date and time as\n"
             "seconds since 1970-01-01T00:00 (int64), the micros of the second (int32) and the offset\n"
             "written, in seconds (int32).");

static PyObject *py_parse_formatted(PyObject *self, PyObject *args) {
    PyObject *steps_obj, *literals_obj, *offsets_obj, *data_obj, *validity_obj, *result = NULL;
    PyObject *status = NULL, *seconds = NULL, *micros = NULL, *zone_seconds = NULL;
    Py_buffer views[5];
    int held[5] = {0, 0, 0, 0, 0}, width;
    long long offset, length, row;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOOLLi", &steps_obj, &literals_obj, &offsets_obj, &data_obj, &validity_obj, &offset,
                          &length, &width))
        return NULL;
    if ((width != 4 && width != 8) || offset < 0 || length < 0) {
        PyErr_SetString(PyExc_ValueError, "parse_formatted: offset_width 4 or 8, offset and length non-negative");
        return NULL;
    }
    {
        PyObject *const objs[5] = {steps_obj, literals_obj, offsets_obj, data_obj, validity_obj};
        const int64_t needed[5] = {0, 0, 0, 0, 0}; /* checked below, together */
        if (hold_buffers("parse_formatted", objs, views, held, needed, 5, 1u << 4, NULL) < 0) goto done;
    }
    if (views[0].len % (Py_ssize_t)sizeof(FormatStep) != 0 || views[2].len < (offset + length + 1) * width ||
        (held[4] && views[4].len < (offset + length + 7) / 8)) {
        PyErr_SetString(PyExc_ValueError, "parse_formatted: a buffer is shorter than its contents");
        goto done;
    }
    {
        const FormatStep *steps = (const FormatStep *)views[0].buf;
        int64_t count = views[0].len / (Py_ssize_t)sizeof(FormatStep), s;
        for (s = 0; s < count; s++) {  /* literal steps point inside the literal buffer */
            if (steps[s].kind == FMT_LITERAL &&
                (steps[s].a < 0 || steps[s].b < 0 || (Py_ssize_t)steps[s].a + steps[s].b > views[1].len)) {
                PyErr_SetString(PyExc_ValueError, "parse_formatted: a literal step points outside the literals");
                goto done;
            }
            if (steps[s].kind != FMT_LITERAL && (steps[s].field < 0 || steps[s].field >= FMT_FIELDS)) {
                PyErr_SetString(PyExc_ValueError, "parse_formatted: a step names no field");
                goto done;
            }
        }
        status = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
        seconds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 8));
        micros = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 4));
        zone_seconds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 4));
        if (status == NULL || seconds == NULL || micros == NULL || zone_seconds == NULL) goto done;
        {
            const uint8_t *data = (const uint8_t *)views[3].buf;
            const uint8_t *validity = held[4] ? (const uint8_t *)views[4].buf : NULL;
            uint8_t *out_status = (uint8_t *)PyBytes_AS_STRING(status);
            int64_t *out_seconds = (int64_t *)PyBytes_AS_STRING(seconds);
            int32_t *out_micros = (int32_t *)PyBytes_AS_STRING(micros);
            int32_t *out_zone = (int32_t *)PyBytes_AS_STRING(zone_seconds);
            for (row = 0; row < length; row++) {
                int64_t at = offset + row, begin, end;
                FormattedDatetime parsed = {FMT_ROW_NULL, 0, 0, 0};
                if (width == 4) {
                    begin = ((const int32_t *)views[2].buf)[at];
                    end = ((const int32_t *)views[2].buf)[at + 1];
                } else {
                    begin = ((const int64_t *)views[2].buf)[at];
                    end = ((const int64_t *)views[2].buf)[at + 1];
                }
                if (begin < 0 || end < begin || end > views[3].len) {
                    PyErr_SetString(PyExc_ValueError, "parse_formatted: an offset lies outside the data buffer");
                    goto done;
                }
                if (validity == NULL || (validity[at >> 3] >> (at & 7)) & 1)
                    parsed = spark_parse_formatted(steps, count, (const uint8_t *)views[1].buf, data + begin, end - begin);
                out_status[row] = (uint8_t)parsed.status;
                out_seconds[row] = parsed.local_seconds;
                out_micros[row] = parsed.micros;
                out_zone[row] = parsed.offset_seconds;
            }
        }
    }
    result = Py_BuildValue("OOOO", status, seconds, micros, zone_seconds);
done:
    Py_XDECREF(status);
    Py_XDECREF(seconds);
    Py_XDECREF(micros);
    Py_XDECREF(zone_seconds);
    release_buffers(views, held, 5);
    return result;
}

/* ---- Spark's casts of strings to dates and timestamps (codec/spark_datetime.c) ------------- */
PyDoc_STRVAR(parse_datetimes_doc,
             "parse_datetimes(offsets, data, validity, offset, length, offset_width, kind)\n"
             "    -> (status, seconds, micros, zone_offsets, zone_data)\n\n"
             "Every string of an Arrow string array (offsets of offset_width 4 or 8 bytes, its data and\n"
             "validity buffers, None when no row is null; offset and length its slice) parsed as Spark's\n"
             "cast to a date (kind 0), a timestamp (1) or a timestamp_ntz (2) parses it. Returns bytes:\n"
             "a status per row (uint8, see spark_datetime.h), the days or local seconds per row (int64),\n"
             "the micros of the second per row (int32), and the zone text written in each row, as the\n"
             "int32 offsets and data of a string array (empty where none).");

static PyObject *py_parse_datetimes(PyObject *self, PyObject *args) {
    PyObject *offsets_obj, *data_obj, *validity_obj, *result = NULL;
    PyObject *status = NULL, *seconds = NULL, *micros = NULL, *zone_offsets = NULL, *zone_data = NULL;
    Py_buffer views[3];
    int held[3] = {0, 0, 0}, width, kind;
    long long offset, length, row;
    int64_t zone_bytes = 0, *zone_at = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOLLii", &offsets_obj, &data_obj, &validity_obj, &offset, &length, &width, &kind))
        return NULL;
    if ((width != 4 && width != 8) || kind < 0 || kind > 2 || offset < 0 || length < 0) {
        PyErr_SetString(PyExc_ValueError, "parse_datetimes: offset_width 4 or 8, kind 0 to 2, offset and length non-negative");
        return NULL;
    }
    {
        PyObject *const objs[3] = {offsets_obj, data_obj, validity_obj};
        const int64_t needed[3] = {0, 0, 0}; /* checked below, together */
        if (hold_buffers("parse_datetimes", objs, views, held, needed, 3, 1u << 2, NULL) < 0) goto done;
    }
    if (views[0].len < (offset + length + 1) * width || (held[2] && views[2].len < (offset + length + 7) / 8)) {
        PyErr_SetString(PyExc_ValueError, "parse_datetimes: the buffers are shorter than offset + length");
        goto done;
    }
    status = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
    seconds = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 8));
    micros = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 4));
    zone_offsets = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((length + 1) * 4));
    zone_at = (int64_t *)malloc((size_t)(length > 0 ? length : 1) * sizeof(int64_t));
    if (zone_at == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (status == NULL || seconds == NULL || micros == NULL || zone_offsets == NULL) goto done;
    {
        const uint8_t *data = (const uint8_t *)views[1].buf;
        const uint8_t *validity = held[2] ? (const uint8_t *)views[2].buf : NULL;
        uint8_t *out_status = (uint8_t *)PyBytes_AS_STRING(status);
        int64_t *out_seconds = (int64_t *)PyBytes_AS_STRING(seconds);
        int32_t *out_micros = (int32_t *)PyBytes_AS_STRING(micros);
        int32_t *out_zones = (int32_t *)PyBytes_AS_STRING(zone_offsets);
        out_zones[0] = 0;
        for (row = 0; row < length; row++) {
            int64_t at = offset + row, begin, end;
            SparkDatetime parsed = {DT_NULL, 0, 0, 0, 0};
            if (width == 4) {
                begin = ((const int32_t *)views[0].buf)[at];
                end = ((const int32_t *)views[0].buf)[at + 1];
            } else {
                begin = ((const int64_t *)views[0].buf)[at];
                end = ((const int64_t *)views[0].buf)[at + 1];
            }
            if (begin < 0 || end < begin || end > views[1].len) {
                PyErr_SetString(PyExc_ValueError, "parse_datetimes: an offset lies outside the data buffer");
                goto done;
            }
            if (validity == NULL || (validity[at >> 3] >> (at & 7)) & 1) {
                parsed = kind == 0 ? spark_string_to_date(data + begin, end - begin)
                                   : spark_string_to_timestamp(data + begin, end - begin, kind == 2);
            }
            out_status[row] = (uint8_t)parsed.status;
            out_seconds[row] = parsed.seconds;
            out_micros[row] = parsed.micros;
            zone_bytes += parsed.zone_length;
            if (zone_bytes > INT32_MAX) {
                PyErr_SetString(PyExc_ValueError, "parse_datetimes: the zone texts exceed 2 GiB");
                goto done;
            }
            out_zones[row + 1] = (int32_t)zone_bytes;
            zone_at[row] = begin + parsed.zone_start;
        }
        zone_data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)zone_bytes);
        if (zone_data == NULL) goto done;
        for (row = 0; row < length; row++) {  /* the zone texts, from where each row's parse left them */
            int32_t from = out_zones[row], size = out_zones[row + 1] - from;
            if (size > 0) memcpy(PyBytes_AS_STRING(zone_data) + from, data + zone_at[row], (size_t)size);
        }
    }
    result = Py_BuildValue("OOOOO", status, seconds, micros, zone_offsets, zone_data);
done:
    Py_XDECREF(status);
    Py_XDECREF(seconds);
    Py_XDECREF(micros);
    Py_XDECREF(zone_offsets);
    Py_XDECREF(zone_data);
    free(zone_at);
    release_buffers(views, held, 3);
    return result;
}

/* ---- is_valid_variant: Spark's VariantUtil.isValidVariant ---------------------------------- */
/* Spark 4.2+ answers whether Spark's own readers could read every value reachable from the top,
 * which is looser than the spec's validation (Variant.validate in vpush.codec.value): the
 * metadata header's version must be 1 (its other bits are not looked at) and each key an object
 * names must lie inside the metadata, but the dictionary is not checked otherwise (neither
 * order, nor UTF-8, nor unused strings); each value's header must be a type Spark 4.3 knows and
 * its payload must lie inside the buffer, a decimal's scale and digits within its width's
 * precision; an object's or array's children must start inside the buffer (their ids, offsets
 * and the children themselves are checked in turn), but fields need not be sorted or unique,
 * the last offset is not read, and trailing bytes are allowed. Sizes and offsets are Java ints:
 * a 4-byte one with its top bit set is malformed, and Spark's dictionary addresses wrap as Java
 * int arithmetic does. Measured against PySpark 4.3 (tests/exec/test_variant_functions.py). */

typedef struct {
    const Piece *pieces;
    int64_t npieces;
    uint8_t *out; /* one byte a row: 0 false, 1 true, 2 SQL NULL */
    int64_t *stack;
    int64_t stack_cap;
    Ctx *c;
} ValidRun;

/* Spark's readUnsigned: a little-endian unsigned int of n bytes at pos, inside len, that fits a
 * non-negative Java int; -1 otherwise. */
static inline int64_t v_unsigned(const uint8_t *b, int64_t len, int64_t pos, int n) {
    uint64_t v;
    if (pos < 0 || pos + n > len) return -1;
    v = read_le(b + pos, n);
    return v > INT32_MAX ? -1 : (int64_t)v;
}

/* Spark's getMetadataKey(metadata, id) does not throw (its addresses are Java ints). */
static int v_key(const uint8_t *m, int64_t mlen, int64_t id) {
    int w = ((m[0] >> 6) & 3) + 1;
    int64_t size = v_unsigned(m, mlen, 1, w), offset, next;
    int32_t strings, last, start;
    if (size < 0 || id >= size) return 0;
    strings = (int32_t)((uint32_t)1 + (uint32_t)(size + 2) * (uint32_t)w);
    offset = v_unsigned(m, mlen, (int64_t)(int32_t)((uint32_t)1 + (uint32_t)(id + 1) * (uint32_t)w), w);
    next = v_unsigned(m, mlen, (int64_t)(int32_t)((uint32_t)1 + (uint32_t)(id + 2) * (uint32_t)w), w);
    if (offset < 0 || next < 0 || offset > next) return 0;
    last = (int32_t)((uint32_t)strings + (uint32_t)next - 1u);
    if (last < 0 || last >= mlen) return 0;
    start = (int32_t)((uint32_t)strings + (uint32_t)offset);
    return start >= 0 && (int64_t)start + (next - offset) <= mlen;
}

static int v_push(ValidRun *r, int64_t *top, int64_t pos) {
    if (*top == r->stack_cap && grow(r->c, (void **)&r->stack, &r->stack_cap, *top + 1, sizeof(int64_t)) < 0) return -1;
    r->stack[(*top)++] = pos;
    return 0;
}

/* 1 valid, 0 not, -1 out of memory. */
static int v_row(ValidRun *r, const uint8_t *m, int64_t mlen, const uint8_t *b, int64_t len) {
    int64_t top = 0;
    if (mlen < 1 || (m[0] & 0x0F) != 1) return 0;
    if (v_push(r, &top, 0) < 0) return -1;
    while (top > 0) {
        int64_t pos = r->stack[--top];
        int header, basic, info;
        if (pos < 0 || pos >= len) return 0;
        header = b[pos];
        basic = header & 3;
        info = header >> 2;
        if (basic == BASIC_SHORT_STRING) {
            if (pos + 1 + info > len) return 0;
        } else if (basic == BASIC_PRIMITIVE) {
            int64_t size;
            switch (info) {
            case PT_NULL: case PT_TRUE: case PT_FALSE: break;
            case PT_DECIMAL4: case PT_DECIMAL8: case PT_DECIMAL16: {
                static const int width[3] = {4, 8, 16}, digits[3] = {9, 18, 38};
                int k = info - PT_DECIMAL4;
                unsigned __int128 mag = 0, bound = 1;
                if (pos + 1 >= len || b[pos + 1] > digits[k] || pos + 2 + width[k] > len) return 0;
                for (int i = width[k] - 1; i >= 0; i--) mag = mag << 8 | b[pos + 2 + i];
                if (b[pos + 1 + width[k]] & 0x80) { /* negative: two's complement of the width */
                    if (width[k] < 16) mag |= ~(unsigned __int128)0 << (8 * width[k]);
                    mag = ~mag + 1;
                }
                for (int i = 0; i < digits[k]; i++) bound *= 10;
                if (mag >= bound) return 0;
                break;
            }
            case PT_BINARY: case PT_STRING:
                size = v_unsigned(b, len, pos + 1, 4);
                if (size < 0 || pos + 5 + size > len) return 0;
                break;
            case PT_TIME: case PT_TIMESTAMP_NANOS: case PT_TIMESTAMP_NTZ_NANOS:
                return 0; /* types Spark 4.3 does not know */
            default:
                if (info > PT_LAST) return 0;
                if (pos + 1 + PRIMITIVE_FIXED_SIZE[info] > len) return 0;
            }
        } else {
            int is_object = basic == BASIC_OBJECT;
            int large = is_object ? (info >> 4) & 1 : (info >> 2) & 1;
            int size_bytes = large ? 4 : 1;
            int isz = is_object ? ((info >> 2) & 3) + 1 : 0, osz = (info & 3) + 1;
            int64_t n = v_unsigned(b, len, pos + 1, size_bytes), ids, offsets, data;
            if (n < 0) return 0;
            ids = pos + 1 + size_bytes;
            offsets = ids + n * isz;
            data = offsets + (n + 1) * osz;
            for (int64_t i = 0; i < n; i++) {
                int64_t off;
                if (is_object) {
                    int64_t id = v_unsigned(b, len, ids + i * isz, isz);
                    if (id < 0 || !v_key(m, mlen, id)) return 0;
                }
                off = v_unsigned(b, len, offsets + i * osz, osz);
                if (off < 0 || data + off >= len || data + off > INT32_MAX) return 0;
                if (v_push(r, &top, data + off) < 0) return -1;
            }
        }
    }
    return 1;
}

static int valid_loop(ValidRun *r) {
    Ctx *c = r->c;
    int64_t row = 0;
    for (int64_t k = 0; k < r->npieces; k++) {
        const Piece *P = &r->pieces[k];
        for (int64_t j = 0; j < P->n; j++, row++) {
            int64_t mp = leaf_pos(&P->metadata, j), vp = leaf_pos(&P->value, j), mlen, len;
            const uint8_t *meta, *buf;
            int ok;
            c->row = row;
            if (mp == -2) return fail(c, ERR_SCHEMA, "metadata", -1, "bad Arrow dictionary index");
            if (vp == -2) return fail(c, ERR_SCHEMA, "value", -1, "bad Arrow dictionary index");
            if (mp < 0 || vp < 0) {
                r->out[row] = 2;
                continue;
            }
            if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
            if (leaf_bytes(c, &P->value, vp, &buf, &len, "value") < 0) return -1;
            ok = v_row(r, meta, mlen, buf, len);
            if (ok < 0) return -1;
            r->out[row] = (uint8_t)ok;
        }
    }
    return 0;
}

PyDoc_STRVAR(is_valid_variant_doc,
             "is_valid_variant(pieces) -> bytes\n\n"
             "Spark's is_valid_variant of every row of a Variant column given as aligned pieces (as\n"
             "extract() takes them): one byte a row, 1 valid, 0 not, 2 where metadata or value is null.\n"
             "Raises KernelError(code, row, where: bytes, message: bytes, byte_offset) on bad Arrow input.");

static PyObject *py_is_valid_variant(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *pieces = NULL, *result = NULL, *out = NULL;
    Ctx c;
    ValidRun r;
    Piece *P = NULL;
    Py_ssize_t npieces = 0;
    int64_t total = 0;
    int status;
    (void)self;
    if (!PyArg_ParseTuple(args, "O", &pieces_arg)) return NULL;
    ctx_init(&c);
    memset(&r, 0, sizeof r);
    r.c = &c;
    if (piece_tuple(&c, pieces_arg, &pieces) < 0 || load_pieces(&c, pieces, &P, &npieces, &total) < 0) goto done;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (out == NULL) goto done;
    r.pieces = P;
    r.npieces = npieces;
    r.out = (uint8_t *)PyBytes_AS_STRING(out);
    c.ts = PyEval_SaveThread();
    status = valid_loop(&r);
    PyEval_RestoreThread(c.ts);
    c.ts = NULL;
    if (status < 0) {
        raise_ctx(&c);
        goto done;
    }
    result = out;
    out = NULL;
done:
    Py_XDECREF(out);
    Py_XDECREF(pieces);
    free(P);
    free(r.stack);
    ctx_free(&c);
    return result;
}

/* ---- to_variant: SQL values as variants, as Spark's VariantBuilder writes them --------------- */
/* Spark's to_variant_object (VariantExpressionEvalUtils.castToVariant): every row of an Arrow
 * column of structs, lists, maps and scalars built into one variant with Spark's bytes. The
 * dictionary holds the keys in the order the builder first meets them (depth first, a key before
 * its value), unsorted; an object's values are written in input order and only its field ids and
 * offsets are sorted by key (Java's String order), a repeated key failing as
 * VARIANT_DUPLICATE_KEY; every integer takes the smallest width, a decimal the smallest type its
 * digits and scale fit; a NULL is a variant null. A variant inside (a struct flagged by the
 * caller) is rebuilt as Spark's appendVariant does: its keys are added to the dictionary, its
 * containers rewritten, its scalars copied as they are. */

enum { B_STRUCT, B_LIST, B_LARGE_LIST, B_MAP, B_BOOL, B_INT, B_FLOAT, B_DOUBLE, B_DECIMAL, B_STRING, B_BINARY,
       B_DATE, B_TIMESTAMP, B_TIMESTAMP_NTZ, B_VARIANT };
enum { ERR_DUPLICATE_KEY = 9 };
#define VERSION_BYTE 1
#define B_MAX_DEPTH 1000 /* vpush.codec.value.MAX_NESTING_DEPTH: a nested variant deeper fails */
#define VARIANT_SIZE_LIMIT (16 * 1024 * 1024)

typedef struct BNode BNode;
struct BNode {
    int kind, width, scale, precision;
    Leaf leaf;         /* scalars and the variant's value */
    Leaf meta;         /* the variant's metadata */
    const uint8_t *valid;
    int64_t off;
    const uint8_t *bits; /* booleans */
    const uint8_t *data; /* fixed-width values, or list offsets */
    int nchildren;
    BNode *children;
    const uint8_t **names;
    size_t *name_lens;
};

typedef struct {
    const uint8_t *key;
    size_t len;
} BKey;

typedef struct {
    uint32_t id;
    const uint8_t *key;
    size_t len;
    int64_t offset;
} BField;

typedef struct {
    Ctx *c;
    BNode *root;
    const uint8_t *flags;
    Py_ssize_t nflags, next_flag;
    BKey *keys;
    int64_t nkeys, keys_cap;
    uint32_t *table; /* open addressing: key index + 1, 0 empty */
    int64_t table_cap;
    BField *fields;
    int64_t nfields, fields_cap;
    int64_t *offs;
    int64_t noffs, offs_cap;
    uint8_t *meta_out;
    int64_t meta_len, meta_cap;
    int32_t *meta_offsets;
    const uint8_t *vmeta; /* the metadata of the variant being appended */
    int64_t vmeta_len;
    int strip; /* variant_strip_nulls: 1 drops fields that are variant nulls, 2 array elements too */
    int any_keys; /* map keys of any type (Spark's hashes), not strings only (variants) */
} Build;

static void b_free_node(BNode *n) {
    for (int i = 0; i < n->nchildren; i++) b_free_node(&n->children[i]);
    free(n->children);
    free(n->names);
    free(n->name_lens);
}

/* Move a node's rows by delta: a struct's slice applies to its children (and theirs), not to the
 * elements of a list or map, which its offsets index. */
static void b_shift(BNode *n, int64_t delta) {
    n->off += delta;
    n->leaf.off += delta;
    n->meta.off += delta;
    if (n->kind == B_STRUCT)
        for (int i = 0; i < n->nchildren; i++) b_shift(&n->children[i], delta);
}

/* The integer of node n (B_INT) at physical index p. */
static inline int64_t b_int_at(const BNode *n, int64_t p) {
    int64_t v;
    switch (n->width) {
    case 1: v = (int8_t)n->data[p]; break;
    case 2: { int16_t t; memcpy(&t, n->data + 2 * p, 2); v = t; break; }
    case 4: { int32_t t; memcpy(&t, n->data + 4 * p, 4); v = t; break; }
    default: memcpy(&v, n->data + 8 * p, 8);
    }
    return v;
}

/* The elements [lo, hi) of the list or map node n at j. */
static void b_bounds(const BNode *n, int64_t j, int64_t *lo, int64_t *hi) {
    int64_t p = n->off + j;
    if (n->kind == B_LARGE_LIST) {
        memcpy(lo, n->data + 8 * p, 8);
        memcpy(hi, n->data + 8 * (p + 1), 8);
    } else {
        int32_t a, z;
        memcpy(&a, n->data + 4 * p, 4);
        memcpy(&z, n->data + 4 * (p + 1), 4);
        *lo = a;
        *hi = z;
    }
}

static int b_bind(Build *b, BNode *n, const struct ArrowSchema *s, const struct ArrowArray *a, const char *path) {
    Ctx *c = b->c;
    const char *f = s->format;
    int variant;
    memset(n, 0, sizeof *n);
    if (b->next_flag >= b->nflags) return fail(c, ERR_SCHEMA, path, -1, "the variant flags do not cover the schema");
    variant = b->flags[b->next_flag++];
    if (s->dictionary != NULL) return fail(c, ERR_UNSUPPORTED, path, -1, "a dictionary-encoded input");
    n->valid = validity_of(a);
    n->off = a->offset;
    if (variant) {
        if (strcmp(f, "+s") != 0 || s->n_children != 2)
            return fail(c, ERR_SCHEMA, path, -1, "a variant must be struct<metadata, value>");
        n->kind = B_VARIANT;
        for (int i = 0; i < 2; i++) {
            const struct ArrowSchema *cs = s->children[i];
            Leaf *l = strcmp(cs->name, "metadata") == 0 ? &n->meta : &n->leaf;
            if (x_leaf(c, l, cs, a->children[i], path) < 0) return -1;
            l->off += a->offset; /* the struct's slice applies to its children */
        }
        return 0;
    }
    if (strcmp(f, "+s") == 0 || strcmp(f, "+m") == 0 || strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) {
        int is_map = f[1] == 'm';
        const struct ArrowSchema *sub = s;
        const struct ArrowArray *suba = a;
        n->kind = f[1] == 's' ? B_STRUCT : is_map ? B_MAP : f[1] == 'l' ? B_LIST : B_LARGE_LIST;
        if (n->kind != B_STRUCT) n->data = (const uint8_t *)a->buffers[1];
        if (is_map) {
            /* map: one child, the struct of (key, value); the node reads its two children */
            sub = s->children[0];
            suba = a->children[0];
            if (b->next_flag >= b->nflags) return fail(c, ERR_SCHEMA, path, -1, "the variant flags do not cover the schema");
            b->next_flag++;
            if (sub->n_children != 2 || suba->offset != 0 || suba->null_count != 0)
                return fail(c, ERR_UNSUPPORTED, path, -1, "a map whose entries the kernel does not read");
        }
        n->nchildren = (int)sub->n_children;
        n->children = calloc((size_t)n->nchildren + 1, sizeof(BNode));
        n->names = calloc((size_t)n->nchildren + 1, sizeof(uint8_t *));
        n->name_lens = calloc((size_t)n->nchildren + 1, sizeof(size_t));
        if (n->children == NULL || n->names == NULL || n->name_lens == NULL) return nomem(c);
        for (int i = 0; i < n->nchildren; i++) {
            n->names[i] = (const uint8_t *)sub->children[i]->name;
            n->name_lens[i] = strlen(sub->children[i]->name);
            if (b_bind(b, &n->children[i], sub->children[i], suba->children[i], path) < 0) return -1;
            if (n->kind == B_STRUCT) b_shift(&n->children[i], a->offset);
        }
        if (is_map && !b->any_keys && n->children[0].kind != B_STRING)
            return fail(c, ERR_SCHEMA, path, -1, "map keys must be strings");
        return 0;
    }
    if (strcmp(f, "b") == 0) {
        n->kind = B_BOOL;
        n->bits = (const uint8_t *)a->buffers[1];
        return 0;
    }
    if (strcmp(f, "c") == 0 || strcmp(f, "s") == 0 || strcmp(f, "i") == 0 || strcmp(f, "l") == 0) {
        n->kind = B_INT;
        n->width = f[0] == 'c' ? 1 : f[0] == 's' ? 2 : f[0] == 'i' ? 4 : 8;
        n->data = (const uint8_t *)a->buffers[1];
        return 0;
    }
    if (strcmp(f, "f") == 0 || strcmp(f, "g") == 0 || strcmp(f, "tdD") == 0) {
        n->kind = f[0] == 'f' ? B_FLOAT : f[0] == 'g' ? B_DOUBLE : B_DATE;
        n->data = (const uint8_t *)a->buffers[1];
        return 0;
    }
    if (strncmp(f, "tsu:", 4) == 0) {
        n->kind = f[4] != '\0' ? B_TIMESTAMP : B_TIMESTAMP_NTZ;
        n->data = (const uint8_t *)a->buffers[1];
        return 0;
    }
    if (strncmp(f, "d:", 2) == 0) {
        int precision, scale, bits;
        if (parse_decimal(f, &precision, &scale, &bits) < 0 || bits != 128)
            return fail(c, ERR_UNSUPPORTED, path, -1, "the kernel reads 128-bit decimals, not Arrow format %s", f);
        n->kind = B_DECIMAL;
        n->scale = scale;
        n->precision = precision;
        n->data = (const uint8_t *)a->buffers[1];
        return 0;
    }
    if (strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "vu") == 0 || strcmp(f, "z") == 0 ||
        strcmp(f, "Z") == 0 || strcmp(f, "vz") == 0) {
        int text = f[strlen(f) - 1] == 'u';
        n->kind = text ? B_STRING : B_BINARY;
        return leaf_init(c, &n->leaf, s, a, f[0] == 'v' ? LK_VIEW : (f[0] == 'U' || f[0] == 'Z') ? LK_OFF64 : LK_OFF32, 0,
                         a->length, path);
    }
    return fail(c, ERR_UNSUPPORTED, path, -1, "to_variant_object of Arrow format %s is not supported", f);
}

static inline int b_put(Ctx *c, const void *p, int64_t n) {
    if (reserve(c, n) < 0) return -1;
    memcpy(c->out + c->out_len, p, (size_t)n);
    c->out_len += n;
    return 0;
}

static inline int b_byte(Ctx *c, uint8_t v) { return b_put(c, &v, 1); }

static int b_long(Ctx *c, int64_t v) {
    uint8_t buf[9];
    int w = v >= INT8_MIN && v <= INT8_MAX ? 1 : v >= INT16_MIN && v <= INT16_MAX ? 2 : v >= INT32_MIN && v <= INT32_MAX ? 4 : 8;
    buf[0] = (uint8_t)((w == 1 ? PT_INT8 : w == 2 ? PT_INT16 : w == 4 ? PT_INT32 : PT_INT64) << 2);
    write_le(buf + 1, (uint64_t)v, w);
    return b_put(c, buf, 1 + w);
}

/* Spark's appendDecimal: the smallest type whose precision holds both the digits and the scale. */
static int b_decimal(Ctx *c, const uint8_t *p, int scale) {
    __int128 v;
    unsigned __int128 mag;
    int digits = 1, width, type;
    uint8_t buf[18];
    memcpy(&v, p, 16);
    mag = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    for (unsigned __int128 t = mag; t >= 10; t /= 10) digits++;
    if (scale <= 9 && digits <= 9) type = PT_DECIMAL4, width = 4;
    else if (scale <= 18 && digits <= 18) type = PT_DECIMAL8, width = 8;
    else type = PT_DECIMAL16, width = 16;
    buf[0] = (uint8_t)(type << 2);
    buf[1] = (uint8_t)scale;
    memcpy(buf + 2, p, (size_t)width); /* little-endian two's complement: the low bytes */
    return b_put(c, buf, 2 + width);
}

static int b_bytes(Ctx *c, const uint8_t *s, int64_t n, int text) {
    uint8_t h[5];
    if (text && n <= 63) {
        if (b_byte(c, (uint8_t)(n << 2 | BASIC_SHORT_STRING)) < 0) return -1;
    } else {
        h[0] = (uint8_t)((text ? PT_STRING : PT_BINARY) << 2);
        write_le(h + 1, (uint64_t)n, 4);
        if (b_put(c, h, 5) < 0) return -1;
    }
    return b_put(c, s, n);
}

static uint64_t b_hash(const uint8_t *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
    return h;
}

/* The id of `key` in the row's dictionary, added at the end when new. */
static int b_add_key(Build *b, const uint8_t *key, size_t len, uint32_t *id) {
    uint64_t mask, h;
    if (b->nkeys * 2 >= b->table_cap) {
        int64_t cap = b->table_cap ? b->table_cap * 2 : 64;
        uint32_t *t = calloc((size_t)cap, sizeof(uint32_t));
        if (t == NULL) return nomem(b->c);
        for (int64_t i = 0; i < b->nkeys; i++) {
            uint64_t j = b_hash(b->keys[i].key, b->keys[i].len) & (uint64_t)(cap - 1);
            while (t[j]) j = (j + 1) & (uint64_t)(cap - 1);
            t[j] = (uint32_t)(i + 1);
        }
        free(b->table);
        b->table = t;
        b->table_cap = cap;
    }
    mask = (uint64_t)(b->table_cap - 1);
    for (h = b_hash(key, len) & mask; b->table[h]; h = (h + 1) & mask) {
        BKey *k = &b->keys[b->table[h] - 1];
        if (k->len == len && memcmp(k->key, key, len) == 0) {
            *id = b->table[h] - 1;
            return 0;
        }
    }
    if (b->nkeys == b->keys_cap && grow(b->c, (void **)&b->keys, &b->keys_cap, b->nkeys + 1, sizeof(BKey)) < 0) return -1;
    b->keys[b->nkeys].key = key;
    b->keys[b->nkeys].len = len;
    b->table[h] = (uint32_t)(b->nkeys + 1);
    *id = (uint32_t)b->nkeys++;
    return 0;
}

static int b_field_order(const void *x, const void *y) {
    const BField *a = x, *b = y;
    return utf16_cmp(a->key, a->len, b->key, b->len);
}

/* Spark's finishWritingObject: fields [first, nfields) of the data written from start. */
static int b_finish_object(Build *b, int64_t start, int64_t first) {
    Ctx *c = b->c;
    BField *f = b->fields + first;
    int64_t n = b->nfields - first, data = c->out_len - start, header;
    uint32_t max_id = 0;
    int large = n > 0xFF, sb = large ? 4 : 1, isz, osz;
    qsort(f, (size_t)n, sizeof(BField), b_field_order);
    for (int64_t i = 0; i < n; i++) {
        if (f[i].id > max_id) max_id = f[i].id;
        if (i > 0 && f[i].len == f[i - 1].len && memcmp(f[i].key, f[i - 1].key, f[i].len) == 0)
            return fail(c, ERR_DUPLICATE_KEY, "", -1, "%.*s", (int)(f[i].len > 400 ? 400 : f[i].len), (const char *)f[i].key);
    }
    isz = int_size(max_id);
    osz = int_size((uint64_t)data);
    header = 1 + sb + n * isz + (n + 1) * osz;
    if (reserve(c, header) < 0) return -1;
    memmove(c->out + start + header, c->out + start, (size_t)data);
    c->out_len += header;
    c->out[start] = (uint8_t)((large << 6) | ((isz - 1) << 4) | ((osz - 1) << 2) | BASIC_OBJECT);
    write_le(c->out + start + 1, (uint64_t)n, sb);
    for (int64_t i = 0; i < n; i++) {
        write_le(c->out + start + 1 + sb + i * isz, f[i].id, isz);
        write_le(c->out + start + 1 + sb + n * isz + i * osz, (uint64_t)f[i].offset, osz);
    }
    write_le(c->out + start + 1 + sb + n * isz + n * osz, (uint64_t)data, osz);
    b->nfields = first;
    return 0;
}

/* Spark's finishWritingArray: element offsets [first, noffs) of the data written from start. */
static int b_finish_array(Build *b, int64_t start, int64_t first) {
    Ctx *c = b->c;
    int64_t n = b->noffs - first, data = c->out_len - start, header;
    int large = n > 0xFF, sb = large ? 4 : 1, osz = int_size((uint64_t)data);
    header = 1 + sb + (n + 1) * osz;
    if (reserve(c, header) < 0) return -1;
    memmove(c->out + start + header, c->out + start, (size_t)data);
    c->out_len += header;
    c->out[start] = (uint8_t)((large << 4) | ((osz - 1) << 2) | BASIC_ARRAY);
    write_le(c->out + start + 1, (uint64_t)n, sb);
    for (int64_t i = 0; i < n; i++) write_le(c->out + start + 1 + sb + i * osz, (uint64_t)b->offs[first + i], osz);
    write_le(c->out + start + 1 + sb + n * osz, (uint64_t)data, osz);
    b->noffs = first;
    return 0;
}

static int b_push_field(Build *b, const uint8_t *key, size_t len, uint32_t id, int64_t offset) {
    if (b->nfields == b->fields_cap && grow(b->c, (void **)&b->fields, &b->fields_cap, b->nfields + 1, sizeof(BField)) < 0)
        return -1;
    b->fields[b->nfields].key = key;
    b->fields[b->nfields].len = len;
    b->fields[b->nfields].id = id;
    b->fields[b->nfields].offset = offset;
    b->nfields++;
    return 0;
}

static int b_push_offset(Build *b, int64_t offset) {
    if (b->noffs == b->offs_cap && grow(b->c, (void **)&b->offs, &b->offs_cap, b->noffs + 1, sizeof(int64_t)) < 0)
        return -1;
    b->offs[b->noffs++] = offset;
    return 0;
}

/* Spark's appendVariantImpl of the value at pos < end of a variant over b->vmeta. */
/* ... skipping, when `del` is not NULL, the element at segments [at, ndel) of it below this value:
 * the child matching del[at] is skipped when it is the last segment, else rebuilt with at + 1. A
 * segment that does not match (a missing key, an index past the end, a key into an array, any
 * segment into a scalar) deletes nothing: Spark's deleteAtPath leaves the value as it is. */
static int b_variant(Build *b, const uint8_t *buf, int64_t pos, int64_t end, int depth, const Seg *del, int64_t at,
                     int64_t ndel) {
    Ctx *c = b->c;
    int basic;
    if (depth > B_MAX_DEPTH) return fail(c, ERR_MALFORMED, "value", pos, "value nested deeper than %d levels", B_MAX_DEPTH);
    if (pos >= end) return fail(c, ERR_MALFORMED, "value", pos, "truncated value: no header byte");
    basic = buf[pos] & 3;
    if (basic == BASIC_OBJECT || basic == BASIC_ARRAY) {
        Container k;
        int64_t start = c->out_len, first = basic == BASIC_OBJECT ? b->nfields : b->noffs;
        if (x_container(c, buf, pos, end, basic == BASIC_OBJECT, &k) < 0) return -1;
        for (uint64_t i = 0; i < k.n; i++) {
            int64_t cpos, cend;
            const Seg *follow = NULL;
            if (x_child(c, buf, &k, end, i, &cpos, &cend) < 0) return -1;
            if (b->strip && cpos < cend && buf[cpos] == NULL_VALUE_BYTE && (basic == BASIC_OBJECT || b->strip == 2))
                continue;
            if (del != NULL && at < ndel && del[at].is_index && basic == BASIC_ARRAY && (uint64_t)del[at].index == i) {
                if (at + 1 == ndel) continue;
                follow = del;
            }
            if (basic == BASIC_OBJECT) {
                uint64_t fid = x_read(buf + k.ids_start + (int64_t)(i * (uint64_t)k.isz), k.isz);
                uint64_t dsize, width = ((b->vmeta[0] >> 6) & 3) + 1, o1, o2, strings;
                uint32_t id;
                if ((int64_t)(1 + width) > b->vmeta_len) return fail(c, ERR_MALFORMED, "metadata", 0, "truncated metadata");
                dsize = read_le(b->vmeta + 1, (int)width);
                strings = 1 + (dsize + 2) * width;
                if (fid >= dsize || 1 + (fid + 3) * width > (uint64_t)b->vmeta_len)
                    return fail(c, ERR_MALFORMED, "metadata", -1, "field id %llu is outside the metadata", (unsigned long long)fid);
                o1 = read_le(b->vmeta + 1 + (fid + 1) * width, (int)width);
                o2 = read_le(b->vmeta + 1 + (fid + 2) * width, (int)width);
                if (o1 > o2 || strings + o2 > (uint64_t)b->vmeta_len)
                    return fail(c, ERR_MALFORMED, "metadata", -1, "the key of field id %llu is outside the metadata",
                                (unsigned long long)fid);
                if (del != NULL && at < ndel && !del[at].is_index && del[at].len == (size_t)(o2 - o1) &&
                    memcmp(del[at].key, b->vmeta + strings + o1, del[at].len) == 0) {
                    if (at + 1 == ndel) continue;
                    follow = del;
                }
                if (b_add_key(b, b->vmeta + strings + o1, (size_t)(o2 - o1), &id) < 0) return -1;
                if (b_push_field(b, b->vmeta + strings + o1, (size_t)(o2 - o1), id, c->out_len - start) < 0) return -1;
            } else if (b_push_offset(b, c->out_len - start) < 0) {
                return -1;
            }
            if (b_variant(b, buf, cpos, cend, depth + 1, follow, at + 1, ndel) < 0) return -1;
        }
        return basic == BASIC_OBJECT ? b_finish_object(b, start, first) : b_finish_array(b, start, first);
    } else {
        int64_t size;
        if (value_size(c, "value", buf, pos, end, &size) < 0) return -1;
        return b_put(c, buf + pos, size);
    }
}

static int b_value(Build *b, BNode *n, int64_t j);

static int b_value(Build *b, BNode *n, int64_t j) {
    Ctx *c = b->c;
    int64_t p = n->off + j;
    if (n->kind != B_VARIANT && n->kind != B_STRING && n->kind != B_BINARY && n->valid != NULL && !bit(n->valid, p))
        return b_byte(c, NULL_VALUE_BYTE);
    switch (n->kind) {
    case B_STRUCT: {
        int64_t start = c->out_len, first = b->nfields;
        for (int i = 0; i < n->nchildren; i++) {
            uint32_t id;
            if (b_add_key(b, n->names[i], n->name_lens[i], &id) < 0) return -1;
            if (b_push_field(b, n->names[i], n->name_lens[i], id, c->out_len - start) < 0) return -1;
            if (b_value(b, &n->children[i], j) < 0) return -1;
        }
        return b_finish_object(b, start, first);
    }
    case B_LIST: case B_LARGE_LIST: case B_MAP: {
        int64_t lo, hi, start = c->out_len, first = n->kind == B_MAP ? b->nfields : b->noffs;
        b_bounds(n, j, &lo, &hi);
        for (int64_t e = lo; e < hi; e++) {
            if (n->kind == B_MAP) {
                BNode *k = &n->children[0];
                int64_t kp = leaf_pos(&k->leaf, e), klen;
                const uint8_t *key;
                uint32_t id;
                if (kp < 0) return fail(c, ERR_SCHEMA, "", -1, "a NULL map key");
                if (leaf_bytes(c, &k->leaf, kp, &key, &klen, "key") < 0) return -1;
                if (b_add_key(b, key, (size_t)klen, &id) < 0) return -1;
                if (b_push_field(b, key, (size_t)klen, id, c->out_len - start) < 0) return -1;
                if (b_value(b, &n->children[1], e) < 0) return -1;
            } else {
                if (b_push_offset(b, c->out_len - start) < 0) return -1;
                if (b_value(b, &n->children[0], e) < 0) return -1;
            }
        }
        return n->kind == B_MAP ? b_finish_object(b, start, first) : b_finish_array(b, start, first);
    }
    case B_BOOL:
        return b_byte(c, (uint8_t)((bit(n->bits, p) ? PT_TRUE : PT_FALSE) << 2));
    case B_INT:
        return b_long(c, b_int_at(n, p));
    case B_FLOAT: case B_DATE: {
        uint8_t buf[5];
        buf[0] = (uint8_t)((n->kind == B_FLOAT ? PT_FLOAT : PT_DATE) << 2);
        memcpy(buf + 1, n->data + 4 * p, 4);
        return b_put(c, buf, 5);
    }
    case B_DOUBLE: case B_TIMESTAMP: case B_TIMESTAMP_NTZ: {
        uint8_t buf[9];
        buf[0] = (uint8_t)((n->kind == B_DOUBLE ? PT_DOUBLE : n->kind == B_TIMESTAMP ? PT_TIMESTAMP : PT_TIMESTAMP_NTZ) << 2);
        memcpy(buf + 1, n->data + 8 * p, 8);
        return b_put(c, buf, 9);
    }
    case B_DECIMAL:
        return b_decimal(c, n->data + 16 * p, n->scale);
    case B_STRING: case B_BINARY: {
        int64_t lp = leaf_pos(&n->leaf, j), len;
        const uint8_t *s;
        if (lp == -2) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
        if (lp < 0) return b_byte(c, NULL_VALUE_BYTE);
        if (leaf_bytes(c, &n->leaf, lp, &s, &len, "value") < 0) return -1;
        return b_bytes(c, s, len, n->kind == B_STRING);
    }
    default: { /* B_VARIANT */
        int64_t mp, vp, mlen, len, status;
        const uint8_t *meta, *buf, *saved = b->vmeta;
        int64_t saved_len = b->vmeta_len;
        if (n->valid != NULL && !bit(n->valid, p)) return b_byte(c, NULL_VALUE_BYTE);
        mp = leaf_pos(&n->meta, j);
        vp = leaf_pos(&n->leaf, j);
        if (mp == -2 || vp == -2) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
        if (mp < 0 || vp < 0) return b_byte(c, NULL_VALUE_BYTE);
        if (leaf_bytes(c, &n->meta, mp, &meta, &mlen, "metadata") < 0) return -1;
        if (leaf_bytes(c, &n->leaf, vp, &buf, &len, "value") < 0) return -1;
        if (mlen < 1 || (meta[0] & 0x0F) != 1) return fail(c, ERR_MALFORMED, "metadata", 0, "bad metadata header");
        b->vmeta = meta;
        b->vmeta_len = mlen;
        status = b_variant(b, buf, 0, len, 0, NULL, 0, 0);
        b->vmeta = saved;
        b->vmeta_len = saved_len;
        return (int)status;
    }
    }
}

/* Spark's VariantBuilder.result(): the row's dictionary as metadata bytes. */
static int b_metadata(Build *b) {
    uint64_t total = 0;
    int64_t need;
    int w;
    for (int64_t i = 0; i < b->nkeys; i++) total += b->keys[i].len;
    w = int_size(total > (uint64_t)b->nkeys ? total : (uint64_t)b->nkeys);
    need = 1 + (b->nkeys + 2) * w + (int64_t)total;
    if (need > VARIANT_SIZE_LIMIT) return fail(b->c, ERR_TOO_LARGE, "metadata", -1, "VARIANT_SIZE_LIMIT");
    if (b->meta_len + need > b->meta_cap && grow(b->c, (void **)&b->meta_out, &b->meta_cap, b->meta_len + need, 1) < 0)
        return -1;
    {
        uint8_t *o = b->meta_out + b->meta_len;
        uint64_t at = 0;
        o[0] = (uint8_t)(VERSION_BYTE | ((w - 1) << 6));
        write_le(o + 1, (uint64_t)b->nkeys, w);
        for (int64_t i = 0; i <= b->nkeys; i++) {
            write_le(o + 1 + (i + 1) * w, at, w);
            if (i < b->nkeys) at += b->keys[i].len;
        }
        o += 1 + (b->nkeys + 2) * w;
        for (int64_t i = 0; i < b->nkeys; i++) {
            memcpy(o, b->keys[i].key, b->keys[i].len);
            o += b->keys[i].len;
        }
    }
    b->meta_len += need;
    return 0;
}

typedef struct {
    Build *b;
    int64_t n;
} BuildLoop;

static int build_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    BuildLoop *l = (BuildLoop *)arg;
    Build *b = l->b;
    Ctx *c = b->c;
    offsets[0] = 0;
    b->meta_offsets[0] = 0;
    for (int64_t row = 0; row < l->n; row++) {
        BNode *root = b->root;
        c->row = row;
        if (root->valid != NULL && !bit(root->valid, root->off + row)) {
            (*null_count)++;
        } else {
            int64_t start = c->out_len;
            b->nkeys = 0;
            if (b->table_cap) memset(b->table, 0, (size_t)b->table_cap * sizeof(uint32_t));
            if (b_value(b, root, row) < 0) return -1;
            if (c->out_len - start > VARIANT_SIZE_LIMIT) return fail(c, ERR_TOO_LARGE, "value", -1, "VARIANT_SIZE_LIMIT");
            if (b_metadata(b) < 0) return -1;
            validity[row >> 3] |= (uint8_t)(1u << (row & 7));
        }
        if (c->out_len > INT32_MAX || b->meta_len > INT32_MAX)
            return fail(c, ERR_TOO_LARGE, "", -1, "the variants exceed one Arrow binary array; build smaller batches");
        offsets[row + 1] = (int32_t)c->out_len;
        b->meta_offsets[row + 1] = (int32_t)b->meta_len;
    }
    return 0;
}

/* ---- what the building kernels share: setup, running the rows, the output, clean-up ------- */
/* Ready c and b for a building kernel; -1 with KernelError raised on a big-endian host. */
static int b_start(Ctx *c, Build *b) {
    ctx_init(c);
    memset(b, 0, sizeof *b);
    b->c = c;
    if (!host_is_little_endian()) {
        fail(c, ERR_UNSUPPORTED, "", -1, "the native kernel reads little-endian Arrow buffers only");
        raise_ctx(c);
        return -1;
    }
    return 0;
}

/* Build n rows with loop: ((null_count, validity, offsets, data), (metadata_offsets, metadata_data)),
 * or NULL with an exception set. */
static PyObject *b_run(Build *b, int64_t n, RowLoop loop, void *arg) {
    PyObject *values, *mo = NULL, *md = NULL, *result = NULL;
    b->meta_offsets = malloc(sizeof(int32_t) * (size_t)(n + 1));
    if (b->meta_offsets == NULL) return PyErr_NoMemory();
    values = run_into_binary(b->c, n, loop, arg);
    if (values == NULL) return NULL;
    mo = PyBytes_FromStringAndSize((const char *)b->meta_offsets, (Py_ssize_t)(sizeof(int32_t) * (size_t)(n + 1)));
    md = PyBytes_FromStringAndSize((const char *)b->meta_out, (Py_ssize_t)b->meta_len);
    if (mo != NULL && md != NULL) result = Py_BuildValue("(O(OO))", values, mo, md);
    Py_DECREF(values);
    Py_XDECREF(mo);
    Py_XDECREF(md);
    return result;
}

/* Free what b_start and b_run allocated, and the context's output. */
static void b_end(Build *b) {
    free(b->keys);
    free(b->table);
    free(b->fields);
    free(b->offs);
    free(b->meta_out);
    free(b->meta_offsets);
    ctx_free(b->c);
}

/* A path tuple of keys (bytes) and array indexes (ints) as n segments in *out (freed by the
 * caller); indexes past INT32_MAX or below 0 are refused where bounded. -1 with an exception set. */
static int parse_segments(PyObject *path, Seg **out, Py_ssize_t *n, int bounded) {
    Seg *segs;
    *n = PyTuple_GET_SIZE(path);
    segs = *out = calloc((size_t)*n + 1, sizeof(Seg));
    if (segs == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < *n; k++) {
        PyObject *seg = PyTuple_GET_ITEM(path, k);
        if (PyBytes_Check(seg)) {
            segs[k].key = (const uint8_t *)PyBytes_AS_STRING(seg);
            segs[k].len = (size_t)PyBytes_GET_SIZE(seg);
        } else if (PyLong_Check(seg) && !PyBool_Check(seg)) {
            long long v = PyLong_AsLongLong(seg);
            if (v == -1 && PyErr_Occurred()) return -1;
            if (bounded && (v < 0 || v > INT32_MAX)) {
                PyErr_Format(PyExc_ValueError, "array index %lld is outside 0..%d", v, INT32_MAX);
                return -1;
            }
            segs[k].is_index = 1;
            segs[k].index = v;
        } else {
            PyErr_SetString(PyExc_TypeError, "a segment is a key (bytes) or an array index (int)");
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(to_variant_doc,
             "to_variant(schema_capsule, array_capsule, variant_flags) -> ((null_count, validity, offsets, data), "
             "(metadata_offsets, metadata_data))\n\n"
             "Every row of an Arrow column of structs, lists, maps and scalars as the variant Spark's\n"
             "VariantBuilder makes of it (to_variant_object). variant_flags holds one byte per node of\n"
             "the Arrow schema in preorder (a map's entries struct counts), 1 where the node is a variant\n"
             "struct<metadata, value>. The first tuple holds pyarrow buffers of the values' binary array\n"
             "(null where the row is), the second bytes of the metadata's int32 offsets and data. Raises\n"
             "KernelError(code, row, where: bytes, message: bytes, byte_offset): code 9 for a repeated key.");

static PyObject *py_to_variant(PyObject *self, PyObject *args) {
    PyObject *schema_capsule, *array_capsule, *result = NULL;
    const char *flags;
    Py_ssize_t nflags;
    struct ArrowSchema *schema;
    struct ArrowArray *array;
    Ctx c;
    Build b;
    BNode root;
    BuildLoop loop;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOy#", &schema_capsule, &array_capsule, &flags, &nflags)) return NULL;
    schema = PyCapsule_GetPointer(schema_capsule, "arrow_schema");
    if (schema == NULL) return NULL;
    array = PyCapsule_GetPointer(array_capsule, "arrow_array");
    if (array == NULL) return NULL;
    memset(&root, 0, sizeof root);
    if (b_start(&c, &b) < 0) return NULL;
    b.flags = (const uint8_t *)flags;
    b.nflags = nflags;
    b.root = &root;
    if (b_bind(&b, &root, schema, array, "") < 0) {
        raise_ctx(&c);
        goto done;
    }
    loop.b = &b;
    loop.n = array->length;
    result = b_run(&b, array->length, build_loop, &loop);
done:
    b_free_node(&root);
    b_end(&b);
    return result;
}

/* ---- Spark's hashes of nested values -------------------------------------------------------- */
/* hash and xxhash64 (HashExpression.computeHash) hash a struct's fields, an array's elements and a
 * map's keys and values (key, value, key, ...) in order, each seeded with the hash so far, a NULL
 * leaving it as it is: the hash of the atoms met walking the value. collect_set keeps a struct as
 * an UnsafeRow and an array as an UnsafeArrayData, whose hashCode is Murmur3 (seed 42) of their
 * bytes: those bytes are written here as Spark's UnsafeRowWriter and UnsafeArrayWriter lay them
 * out (a row: its null bits in whole words, an 8-byte slot per field, then the variable-length
 * data; an array: its element count as a long, its null bits, its elements at their width padded
 * to a word, then the variable-length data; a variable-length value's slot holds its offset from
 * the row's or array's start in the high 32 bits and its size in the low ones, its data padded to
 * a word; a decimal of more than 18 digits as BigInteger.toByteArray of its unscaled value, which
 * a row gives 16 bytes even when NULL, an array its size padded; floats and doubles normalized). */

typedef struct {
    uint8_t *buf;
    int64_t len, cap;
} UBuf;

/* Append n zero bytes; their start, or -1. */
static int64_t u_zeros(Ctx *c, UBuf *u, int64_t n) {
    int64_t start = u->len;
    if (u->len + n > u->cap) {
        int64_t cap = u->cap ? u->cap : 256;
        uint8_t *grown;
        while (cap < u->len + n) cap *= 2;
        grown = realloc(u->buf, (size_t)cap);
        if (grown == NULL) return nomem(c);
        u->buf = grown;
        u->cap = cap;
    }
    memset(u->buf + u->len, 0, (size_t)n);
    u->len += n;
    return start;
}

static inline void u_put64(UBuf *u, int64_t at, uint64_t v) { memcpy(u->buf + at, &v, 8); }

static inline int u_wide(const BNode *n) { return n->kind == B_DECIMAL && n->precision > 18; }

static inline int u_null(const BNode *n, int64_t j) {
    if (n->kind == B_STRING || n->kind == B_BINARY) return leaf_pos(&n->leaf, j) == -1;
    return n->valid != NULL && !bit(n->valid, n->off + j);
}

/* The width of an element of an UnsafeArrayData of n's type (8: a long, or a variable-length
 * value's offset and size). */
static inline int u_width(const BNode *n) {
    if (n->kind == B_BOOL) return 1;
    if (n->kind == B_INT) return n->width;
    if (n->kind == B_FLOAT || n->kind == B_DATE) return 4;
    return 8;
}

/* The bits of n's fixed-width value at j in *word, its width (4 or 8 as Spark hashes it: hashInt
 * of a boolean, byte, short, int, float or date, hashLong of the others); 0 for a variable-length
 * value (a string, a binary, a decimal of more than 18 digits, a struct, an array, a map). */
static int u_fixed(const BNode *n, int64_t j, uint64_t *word) {
    int64_t p = n->off + j;
    switch (n->kind) {
    case B_BOOL:
        *word = (uint64_t)bit(n->bits, p);
        return 4;
    case B_INT:
        *word = (uint64_t)b_int_at(n, p);
        return n->width == 8 ? 8 : 4;
    case B_FLOAT: {
        float f;
        memcpy(&f, n->data + 4 * p, 4);
        *word = spark_float_bits(f);
        return 4;
    }
    case B_DATE: {
        int32_t t;
        memcpy(&t, n->data + 4 * p, 4);
        *word = (uint64_t)(int64_t)t;
        return 4;
    }
    case B_DOUBLE: {
        double d;
        memcpy(&d, n->data + 8 * p, 8);
        *word = spark_double_bits(d);
        return 8;
    }
    case B_TIMESTAMP: case B_TIMESTAMP_NTZ:
        memcpy(word, n->data + 8 * p, 8);
        return 8;
    case B_DECIMAL:
        if (u_wide(n)) return 0;
        memcpy(word, n->data + 16 * p, 8); /* the unscaled value fits the low long */
        return 8;
    default:
        return 0;
    }
}

static int64_t u_row(Ctx *c, UBuf *u, const BNode *n, int64_t j);
static int64_t u_array(Ctx *c, UBuf *u, const BNode *element, int64_t lo, int64_t hi);


/* Append n's variable-length value at j (not NULL), padded to a word (a wide decimal in a row to
 * 16 bytes); its size unpadded, or -1. */
static int64_t u_var(Ctx *c, UBuf *u, const BNode *n, int64_t j, int in_row) {
    switch (n->kind) {
    case B_STRUCT:
        return u_row(c, u, n, j);
    case B_LIST: case B_LARGE_LIST: {
        int64_t lo, hi;
        b_bounds(n, j, &lo, &hi);
        return u_array(c, u, &n->children[0], lo, hi);
    }
    case B_DECIMAL: {
        uint8_t big[16];
        int size = spark_big_integer_bytes(n->data + 16 * (n->off + j), big);
        int64_t at = u_zeros(c, u, in_row ? 16 : (size + 7) / 8 * 8);
        if (at < 0) return -1;
        memcpy(u->buf + at, big, (size_t)size);
        return size;
    }
    case B_STRING: case B_BINARY: {
        const uint8_t *s;
        int64_t len, at, lp = leaf_pos(&n->leaf, j);
        if (lp < 0) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
        if (leaf_bytes(c, &n->leaf, lp, &s, &len, "value") < 0) return -1;
        at = u_zeros(c, u, (len + 7) / 8 * 8);
        if (at < 0) return -1;
        memcpy(u->buf + at, s, (size_t)len);
        return len;
    }
    default:
        return fail(c, ERR_UNSUPPORTED, "", -1, "no unsafe layout of a map or a variant here");
    }
}

/* Append the UnsafeRow of the struct node n at j; its size, or -1. */
static int64_t u_row(Ctx *c, UBuf *u, const BNode *n, int64_t j) {
    int64_t bits = (n->nchildren + 63) / 64 * 8, start = u_zeros(c, u, bits + 8 * (int64_t)n->nchildren);
    if (start < 0) return -1;
    for (int i = 0; i < n->nchildren; i++) {
        const BNode *f = &n->children[i];
        int64_t slot = start + bits + 8 * i, at, size;
        uint64_t word = 0;
        if (u_null(f, j)) {
            u->buf[start + i / 8] |= (uint8_t)(1u << (i % 8));
            if (u_wide(f)) { /* UnsafeRowWriter.write of a NULL decimal keeps its 16 bytes */
                at = u_zeros(c, u, 16);
                if (at < 0) return -1;
                u_put64(u, slot, (uint64_t)(at - start) << 32);
            }
            continue;
        }
        if (u_fixed(f, j, &word)) {
            memcpy(u->buf + slot, &word, (size_t)u_width(f)); /* little-endian: the low bytes */
            continue;
        }
        at = u->len;
        size = u_var(c, u, f, j, 1);
        if (size < 0) return -1;
        u_put64(u, slot, (uint64_t)(at - start) << 32 | (uint64_t)size);
    }
    return u->len - start;
}

/* Append the UnsafeArrayData of the elements [lo, hi) of node element; its size, or -1. */
static int64_t u_array(Ctx *c, UBuf *u, const BNode *element, int64_t lo, int64_t hi) {
    int64_t count = hi - lo, header = 8 + (count + 63) / 64 * 8, width = u_width(element), start;
    start = u_zeros(c, u, header + (width * count + 7) / 8 * 8);
    if (start < 0) return -1;
    u_put64(u, start, (uint64_t)count);
    for (int64_t k = 0; k < count; k++) {
        int64_t e = lo + k, at, size;
        uint64_t word = 0;
        if (u_null(element, e)) {
            u->buf[start + 8 + k / 8] |= (uint8_t)(1u << (k % 8));
            continue;
        }
        if (u_fixed(element, e, &word)) {
            memcpy(u->buf + start + header + width * k, &word, (size_t)width);
            continue;
        }
        at = u->len;
        size = u_var(c, u, element, e, 0);
        if (size < 0) return -1;
        u_put64(u, start + header + 8 * k, (uint64_t)(at - start) << 32 | (uint64_t)size);
    }
    return u->len - start;
}

/* Spark's hash (algorithm HASH_MURMUR3) or xxhash64 of n's value at j seeded with *seed, into *seed. */
static int h_value(Ctx *c, const BNode *n, int64_t j, int algorithm, uint64_t *seed) {
    uint64_t word = 0;
    int width;
    if (u_null(n, j)) return 0;
    switch (n->kind) {
    case B_STRUCT:
        for (int i = 0; i < n->nchildren; i++)
            if (h_value(c, &n->children[i], j, algorithm, seed) < 0) return -1;
        return 0;
    case B_LIST: case B_LARGE_LIST: case B_MAP: {
        int64_t lo, hi;
        b_bounds(n, j, &lo, &hi);
        for (int64_t e = lo; e < hi; e++) {
            if (h_value(c, &n->children[0], e, algorithm, seed) < 0) return -1;
            if (n->kind == B_MAP && h_value(c, &n->children[1], e, algorithm, seed) < 0) return -1;
        }
        return 0;
    }
    case B_DECIMAL:
        if (u_wide(n)) {
            uint8_t big[16];
            int size = spark_big_integer_bytes(n->data + 16 * (n->off + j), big);
            *seed = spark_hash_value(algorithm, 0, 0, big, size, *seed);
            return 0;
        }
        break;
    case B_STRING: case B_BINARY: {
        const uint8_t *s;
        int64_t len, lp = leaf_pos(&n->leaf, j);
        if (lp < 0) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
        if (leaf_bytes(c, &n->leaf, lp, &s, &len, "value") < 0) return -1;
        *seed = spark_hash_value(algorithm, 0, 0, s, len, *seed);
        return 0;
    }
    case B_VARIANT:
        return fail(c, ERR_UNSUPPORTED, "", -1, "Spark does not hash a variant");
    default:
        break;
    }
    width = u_fixed(n, j, &word);
    *seed = spark_hash_value(algorithm, width, word, NULL, 0, *seed);
    return 0;
}

static Py_ssize_t count_nodes(const struct ArrowSchema *s) {
    Py_ssize_t n = 1;
    for (int64_t i = 0; i < s->n_children; i++) n += count_nodes(s->children[i]);
    return n;
}

PyDoc_STRVAR(nested_hash_doc,
             "nested_hash(schema_capsule, array_capsule, algorithm, seeds) -> (null_count, validity, out)\n\n"
             "Spark's hash (algorithm 0: int32 seeds and results) or xxhash64 (1: int64) of every row of an\n"
             "Arrow column of structs, lists, maps and atoms seeded by the row's seed (its seed where the row\n"
             "is NULL), or (3, seeds None) the hashCode of the UnsafeRow or UnsafeArrayData Spark's collect_set\n"
             "keeps for a struct or list (int32, NULL where the row is). Returns the results' buffer, and for\n"
             "3 their validity (None: no NULL) and NULL count.");

static PyObject *py_nested_hash(PyObject *self, PyObject *args) {
    PyObject *schema_capsule, *array_capsule, *seeds_obj, *out = NULL, *validity = NULL, *result = NULL;
    struct ArrowSchema *schema;
    struct ArrowArray *array;
    Py_buffer seeds;
    int algorithm, held = 0;
    uint8_t *flags = NULL;
    Ctx c;
    Build b;
    BNode root;
    UBuf u = {NULL, 0, 0};
    int64_t n, nulls = 0, width;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiO", &schema_capsule, &array_capsule, &algorithm, &seeds_obj)) return NULL;
    if (algorithm != HASH_MURMUR3 && algorithm != HASH_XXHASH64 && algorithm != HASH_SCALA) {
        PyErr_SetString(PyExc_ValueError, "nested_hash: no such algorithm");
        return NULL;
    }
    schema = PyCapsule_GetPointer(schema_capsule, "arrow_schema");
    if (schema == NULL) return NULL;
    array = PyCapsule_GetPointer(array_capsule, "arrow_array");
    if (array == NULL) return NULL;
    n = array->length;
    width = algorithm == HASH_XXHASH64 ? 8 : 4;
    if (algorithm != HASH_SCALA) {
        if (PyObject_GetBuffer(seeds_obj, &seeds, PyBUF_SIMPLE) < 0) return NULL;
        held = 1;
        if (seeds.len < n * width) {
            PyErr_SetString(PyExc_ValueError, "nested_hash: fewer seeds than rows");
            PyBuffer_Release(&seeds);
            return NULL;
        }
    }
    memset(&root, 0, sizeof root);
    if (b_start(&c, &b) < 0) goto done;
    flags = calloc((size_t)count_nodes(schema), 1);
    if (flags == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    b.flags = flags;
    b.nflags = count_nodes(schema);
    b.any_keys = 1;
    b.root = &root;
    if (b_bind(&b, &root, schema, array, "") < 0) {
        raise_ctx(&c);
        goto done;
    }
    if (algorithm == HASH_SCALA && root.kind != B_STRUCT && root.kind != B_LIST && root.kind != B_LARGE_LIST) {
        PyErr_SetString(PyExc_ValueError, "nested_hash: collect_set's hash of a struct or a list only");
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * width));
    validity = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((n + 7) / 8));
    if (out == NULL || validity == NULL) goto done;
    {
        uint8_t *target = (uint8_t *)PyBytes_AS_STRING(out), *valid = (uint8_t *)PyBytes_AS_STRING(validity);
        int status = 0;
        memset(valid, 0, (size_t)((n + 7) / 8));
        Py_BEGIN_ALLOW_THREADS
        for (int64_t j = 0; j < n && status == 0; j++) {
            c.row = j;
            if (algorithm == HASH_SCALA) {
                int32_t h = 0;
                int64_t size;
                if (u_null(&root, j)) {
                    nulls++;
                } else {
                    u.len = 0;
                    size = u_var(&c, &u, &root, j, 0);
                    if (size < 0) {
                        status = -1;
                        break;
                    }
                    h = spark_unsafe_hash(u.buf, u.len);
                    valid[j >> 3] |= (uint8_t)(1u << (j & 7));
                }
                memcpy(target + 4 * j, &h, 4);
            } else {
                uint64_t seed = 0;
                memcpy(&seed, (const uint8_t *)seeds.buf + width * j, (size_t)width);
                status = h_value(&c, &root, j, algorithm, &seed);
                memcpy(target + width * j, &seed, (size_t)width);
            }
        }
        Py_END_ALLOW_THREADS
        if (status < 0) {
            raise_ctx(&c);
            goto done;
        }
    }
    result = Py_BuildValue("LOO", (long long)nulls, algorithm == HASH_SCALA && nulls ? validity : Py_None, out);
done:
    Py_XDECREF(out);
    Py_XDECREF(validity);
    free(flags);
    free(u.buf);
    b_free_node(&root);
    b_end(&b);
    if (held) PyBuffer_Release(&seeds);
    return result;
}

/* ---- variant_delete: Spark's VariantBuilder.deleteAtPath ----------------------------------- */
/* Each row rebuilt by a fresh builder once per path, in order (so a later index counts after an
 * earlier deletion), the element at the path left out where the path reaches one: Spark's
 * builder writes the result, so even an unchanged value comes back with a new dictionary (keys
 * as its stored fields are first met) and re-encoded containers, its scalars copied as they are. */

typedef struct {
    Build *b;
    const Piece *pieces;
    int64_t npieces;
    const Seg *const *paths; /* NULL for a NULL path, which Spark skips */
    const int64_t *lens;
    int64_t npaths;
    int strip; /* variant_strip_nulls (1, 2), or a plain rebuild (3): one pass, no paths */
    uint8_t *scratch; /* the previous step's metadata then value */
    int64_t scratch_cap;
} DeleteRun;

static int delete_loop(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    DeleteRun *d = (DeleteRun *)arg;
    Build *b = d->b;
    Ctx *c = b->c;
    int64_t row = 0;
    offsets[0] = 0;
    b->meta_offsets[0] = 0;
    for (int64_t k = 0; k < d->npieces; k++) {
        const Piece *P = &d->pieces[k];
        for (int64_t j = 0; j < P->n; j++, row++) {
            int64_t mp = leaf_pos(&P->metadata, j), vp = leaf_pos(&P->value, j), mlen, len;
            const uint8_t *meta, *buf;
            c->row = row;
            if (mp == -2 || vp == -2) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
            if (mp < 0 || vp < 0) {
                (*null_count)++;
                offsets[row + 1] = (int32_t)c->out_len;
                b->meta_offsets[row + 1] = (int32_t)b->meta_len;
                continue;
            }
            if (leaf_bytes(c, &P->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
            if (leaf_bytes(c, &P->value, vp, &buf, &len, "value") < 0) return -1;
            for (int64_t s = 0; s < (d->strip ? 1 : d->npaths); s++) {
                int64_t start = c->out_len, mstart = b->meta_len;
                if (!d->strip && d->paths[s] == NULL) continue;
                if (mlen < 1 || (meta[0] & 0x0F) != 1) return fail(c, ERR_MALFORMED, "metadata", 0, "bad metadata header");
                b->nkeys = 0;
                if (b->table_cap) memset(b->table, 0, (size_t)b->table_cap * sizeof(uint32_t));
                b->vmeta = meta;
                b->vmeta_len = mlen;
                if (b_variant(b, buf, 0, len, 0, d->strip ? NULL : d->paths[s], 0, d->strip ? 0 : d->lens[s]) < 0)
                    return -1;
                if (b_metadata(b) < 0) return -1;
                /* the next path reads this step's result */
                mlen = b->meta_len - mstart;
                len = c->out_len - start;
                if (mlen + len > d->scratch_cap &&
                    grow(c, (void **)&d->scratch, &d->scratch_cap, mlen + len, 1) < 0)
                    return -1;
                memcpy(d->scratch, b->meta_out + mstart, (size_t)mlen);
                memcpy(d->scratch + mlen, c->out + start, (size_t)len);
                meta = d->scratch;
                buf = d->scratch + mlen;
                c->out_len = start;
                b->meta_len = mstart;
            }
            if (len > VARIANT_SIZE_LIMIT) return fail(c, ERR_TOO_LARGE, "value", -1, "VARIANT_SIZE_LIMIT");
            if (b_put(c, buf, len) < 0) return -1;
            if (b->meta_len + mlen > b->meta_cap && grow(c, (void **)&b->meta_out, &b->meta_cap, b->meta_len + mlen, 1) < 0)
                return -1;
            memcpy(b->meta_out + b->meta_len, meta, (size_t)mlen);
            b->meta_len += mlen;
            validity[row >> 3] |= (uint8_t)(1u << (row & 7));
            if (c->out_len > INT32_MAX || b->meta_len > INT32_MAX)
                return fail(c, ERR_TOO_LARGE, "", -1, "the variants exceed one Arrow binary array; use smaller batches");
            offsets[row + 1] = (int32_t)c->out_len;
            b->meta_offsets[row + 1] = (int32_t)b->meta_len;
        }
    }
    return 0;
}

PyDoc_STRVAR(variant_delete_doc,
             "variant_delete(pieces, paths, strip=0) -> ((null_count, validity, offsets, data), (metadata_offsets, metadata_data))\n\n"
             "Spark's variant_delete of every row of a Variant column given as aligned pieces (as extract()\n"
             "takes them). paths is a tuple of paths, each a tuple of keys (UTF-8 bytes) and indexes (int),\n"
             "or None (skipped). With strip 1 or 2 (and no paths) it is variant_strip_nulls instead: fields that\n"
             "are variant nulls dropped, and with 2 array elements too; with 3 each row is rebuilt whole, as Spark's\n"
             "VariantBuilder.appendVariant writes it (a new dictionary of the keys met). Returns the values' binary array\n"
             "buffers and the metadata's offsets and data.\n"
             "Raises KernelError as extract() does.");

static PyObject *py_variant_delete(PyObject *self, PyObject *args) {
    PyObject *pieces_arg, *paths_arg, *pieces = NULL, *result = NULL;
    Ctx c;
    Build b;
    DeleteRun d;
    Piece *P = NULL;
    Seg **paths = NULL;
    int64_t *lens = NULL;
    Py_ssize_t npieces = 0, npaths;
    int64_t total = 0;
    int strip = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!|i", &pieces_arg, &PyTuple_Type, &paths_arg, &strip)) return NULL;
    if (strip < 0 || strip > 3) {
        PyErr_SetString(PyExc_ValueError, "strip is 0, 1, 2 or 3");
        return NULL;
    }
    memset(&d, 0, sizeof d);
    if (b_start(&c, &b) < 0) return NULL;
    npaths = PyTuple_GET_SIZE(paths_arg);
    paths = calloc((size_t)npaths + 1, sizeof(Seg *));
    lens = calloc((size_t)npaths + 1, sizeof(int64_t));
    if (paths == NULL || lens == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < npaths; i++) {
        PyObject *path = PyTuple_GET_ITEM(paths_arg, i);
        Py_ssize_t n;
        if (path == Py_None) continue;
        if (!PyTuple_Check(path)) {
            PyErr_SetString(PyExc_TypeError, "a path is a tuple of segments, or None");
            goto done;
        }
        if (parse_segments(path, &paths[i], &n, 0) < 0) goto done;
        lens[i] = n;
    }
    pieces = PySequence_Tuple(pieces_arg);
    if (pieces == NULL) goto done;
    if (load_pieces(&c, pieces, &P, &npieces, &total) < 0) goto done;
    d.b = &b;
    d.pieces = P;
    d.npieces = npieces;
    d.paths = (const Seg *const *)paths;
    d.lens = lens;
    d.npaths = npaths;
    d.strip = strip;
    b.strip = strip == 3 ? 0 : strip; /* 3: one rebuild, nothing left out */
    result = b_run(&b, total, (RowLoop)delete_loop, &d);
done:
    Py_XDECREF(pieces);
    if (paths != NULL)
        for (Py_ssize_t i = 0; i < npaths; i++) free(paths[i]);
    free(paths);
    free(lens);
    free(P);
    free(d.scratch);
    b_end(&b);
    return result;
}

/* ---- variant_set, variant_insert, variant_array_append: Spark's VariantBuilder -------------- */
/* Spark's setAtPath, insertAtPath and arrayAppendAtPath, as measured against PySpark 4.3: the row
 * is rebuilt by Spark's builder (as variant_delete rebuilds it) along one path. At each step the
 * value reached must be an object for a key and an array for an index, else the row fails with
 * VARIANT_PATH_TYPE_MISMATCH at that step. A missing key or an index past the end is created (set
 * with create_if_missing, and insert): an object for a key, an array for an index, padded with
 * variant nulls up to the index; set without create_if_missing and array_append leave the row as
 * it is. At the end, set replaces, insert puts the value before an element (or fails with
 * VARIANT_DUPLICATE_KEY on a key that is there), array_append appends to the array the path
 * reaches. The new value is appended as Spark's appendVariant does. */

enum { ERR_PATH_MISMATCH = 10 };
enum { M_SET = 0, M_INSERT = 1, M_APPEND = 2 };

typedef struct {
    int mode, create;
    const Seg *segs;
    int64_t n;
    const uint8_t *new_meta, *new_value;
    int64_t new_meta_len, new_value_len;
} Modify;

static int b_new_value(Build *b, const Modify *m) {
    const uint8_t *saved = b->vmeta;
    int64_t saved_len = b->vmeta_len;
    int status;
    if (m->new_meta_len < 1 || (m->new_meta[0] & 0x0F) != 1)
        return fail(b->c, ERR_MALFORMED, "metadata", 0, "bad metadata header");
    b->vmeta = m->new_meta;
    b->vmeta_len = m->new_meta_len;
    status = b_variant(b, m->new_value, 0, m->new_value_len, 0, NULL, 0, 0);
    b->vmeta = saved;
    b->vmeta_len = saved_len;
    return status;
}

/* What a missing step creates: the containers for segments [at, n), then the new value. */
static int b_created(Build *b, const Modify *m, int64_t at) {
    Ctx *c = b->c;
    int64_t start = c->out_len;
    if (at == m->n) return b_new_value(b, m);
    if (!m->segs[at].is_index) {
        int64_t first = b->nfields;
        uint32_t id;
        if (b_add_key(b, m->segs[at].key, m->segs[at].len, &id) < 0) return -1;
        if (b_push_field(b, m->segs[at].key, m->segs[at].len, id, 0) < 0) return -1;
        if (b_created(b, m, at + 1) < 0) return -1;
        return b_finish_object(b, start, first);
    } else {
        int64_t first = b->noffs;
        for (int64_t i = 0; i < m->segs[at].index; i++)
            if (b_push_offset(b, c->out_len - start) < 0 || b_byte(c, NULL_VALUE_BYTE) < 0) return -1;
        if (b_push_offset(b, c->out_len - start) < 0) return -1;
        if (b_created(b, m, at + 1) < 0) return -1;
        return b_finish_array(b, start, first);
    }
}

/* The value at pos < end, reached by segments [0, at), rebuilt with the change. */
static int b_modify(Build *b, const Modify *m, const uint8_t *buf, int64_t pos, int64_t end, int64_t at, int depth) {
    Ctx *c = b->c;
    const Seg *seg;
    Container k;
    int basic, last, found = 0;
    int64_t start = c->out_len, first;
    if (depth > B_MAX_DEPTH) return fail(c, ERR_MALFORMED, "value", pos, "value nested deeper than %d levels", B_MAX_DEPTH);
    if (pos >= end) return fail(c, ERR_MALFORMED, "value", pos, "truncated value: no header byte");
    basic = buf[pos] & 3;
    if (at == m->n) { /* array_append: the array to append to */
        if (basic != BASIC_ARRAY) return fail(c, ERR_PATH_MISMATCH, "", at, "path type mismatch");
        first = b->noffs;
        if (x_container(c, buf, pos, end, 0, &k) < 0) return -1;
        for (uint64_t i = 0; i < k.n; i++) {
            int64_t cpos, cend;
            if (x_child(c, buf, &k, end, i, &cpos, &cend) < 0) return -1;
            if (b_push_offset(b, c->out_len - start) < 0) return -1;
            if (b_variant(b, buf, cpos, cend, depth + 1, NULL, 0, 0) < 0) return -1;
        }
        if (b_push_offset(b, c->out_len - start) < 0 || b_new_value(b, m) < 0) return -1;
        return b_finish_array(b, start, first);
    }
    seg = &m->segs[at];
    last = at + 1 == m->n && m->mode != M_APPEND;
    if (seg->is_index ? basic != BASIC_ARRAY : basic != BASIC_OBJECT)
        return fail(c, ERR_PATH_MISMATCH, "", at, "path type mismatch");
    first = basic == BASIC_OBJECT ? b->nfields : b->noffs;
    if (x_container(c, buf, pos, end, basic == BASIC_OBJECT, &k) < 0) return -1;
    for (uint64_t i = 0; i < k.n; i++) {
        int64_t cpos, cend;
        int match;
        if (x_child(c, buf, &k, end, i, &cpos, &cend) < 0) return -1;
        if (basic == BASIC_OBJECT) {
            const uint8_t *name;
            size_t len;
            uint32_t id;
            uint64_t fid = x_read(buf + k.ids_start + (int64_t)(i * (uint64_t)k.isz), k.isz);
            uint64_t width = ((b->vmeta[0] >> 6) & 3) + 1, dsize, o1, o2, strings;
            if ((int64_t)(1 + width) > b->vmeta_len) return fail(c, ERR_MALFORMED, "metadata", 0, "truncated metadata");
            dsize = read_le(b->vmeta + 1, (int)width);
            strings = 1 + (dsize + 2) * width;
            if (fid >= dsize || 1 + (fid + 3) * width > (uint64_t)b->vmeta_len)
                return fail(c, ERR_MALFORMED, "metadata", -1, "field id %llu is outside the metadata", (unsigned long long)fid);
            o1 = read_le(b->vmeta + 1 + (fid + 1) * width, (int)width);
            o2 = read_le(b->vmeta + 1 + (fid + 2) * width, (int)width);
            if (o1 > o2 || strings + o2 > (uint64_t)b->vmeta_len)
                return fail(c, ERR_MALFORMED, "metadata", -1, "the key of field id %llu is outside the metadata",
                            (unsigned long long)fid);
            name = b->vmeta + strings + o1;
            len = (size_t)(o2 - o1);
            match = len == seg->len && memcmp(name, seg->key, len) == 0;
            if (match && last && m->mode == M_INSERT)
                return fail(c, ERR_DUPLICATE_KEY, "", -1, "%.*s", (int)(len > 400 ? 400 : len), (const char *)name);
            if (b_add_key(b, name, len, &id) < 0) return -1;
            if (b_push_field(b, name, len, id, c->out_len - start) < 0) return -1;
        } else {
            match = (uint64_t)seg->index == i;
            if (match && last && m->mode == M_INSERT) {
                if (b_push_offset(b, c->out_len - start) < 0 || b_new_value(b, m) < 0) return -1;
                found = 1;
                match = 0; /* the element itself follows, unchanged */
            }
            if (b_push_offset(b, c->out_len - start) < 0) return -1;
        }
        if (match) {
            found = 1;
            if (last) {
                if (b_new_value(b, m) < 0) return -1;
            } else if (b_modify(b, m, buf, cpos, cend, at + 1, depth + 1) < 0) {
                return -1;
            }
        } else if (b_variant(b, buf, cpos, cend, depth + 1, NULL, 0, 0) < 0) {
            return -1;
        }
    }
    if (!found && (m->mode == M_INSERT || (m->mode == M_SET && m->create))) {
        if (basic == BASIC_OBJECT) {
            uint32_t id;
            if (b_add_key(b, seg->key, seg->len, &id) < 0) return -1;
            if (b_push_field(b, seg->key, seg->len, id, c->out_len - start) < 0) return -1;
        } else {
            for (int64_t i = (int64_t)k.n; i < seg->index; i++)
                if (b_push_offset(b, c->out_len - start) < 0 || b_byte(c, NULL_VALUE_BYTE) < 0) return -1;
            if (b_push_offset(b, c->out_len - start) < 0) return -1;
        }
        if ((last ? b_new_value(b, m) : b_created(b, m, at + 1)) < 0) return -1;
    }
    return basic == BASIC_OBJECT ? b_finish_object(b, start, first) : b_finish_array(b, start, first);
}

static int modify_loop(Build *b, const Modify *base, const Piece *vp_, const Piece *np, int fail_on_error,
                       uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    Ctx *c = b->c;
    offsets[0] = 0;
    b->meta_offsets[0] = 0;
    for (int64_t row = 0; row < vp_->n; row++) {
        int64_t mp = leaf_pos(&vp_->metadata, row), vp = leaf_pos(&vp_->value, row);
        int64_t nmp = leaf_pos(&np->metadata, row), nvp = leaf_pos(&np->value, row);
        int64_t mlen, len, start = c->out_len, mstart = b->meta_len;
        const uint8_t *meta, *buf;
        Modify m = *base;
        c->row = row;
        if (mp == -2 || vp == -2 || nmp == -2 || nvp == -2) return fail(c, ERR_SCHEMA, "", -1, "bad Arrow dictionary index");
        if (mp >= 0 && vp >= 0 && nmp >= 0 && nvp >= 0) {
            int status;
            if (leaf_bytes(c, &vp_->metadata, mp, &meta, &mlen, "metadata") < 0) return -1;
            if (leaf_bytes(c, &vp_->value, vp, &buf, &len, "value") < 0) return -1;
            if (leaf_bytes(c, &np->metadata, nmp, &m.new_meta, &m.new_meta_len, "metadata") < 0) return -1;
            if (leaf_bytes(c, &np->value, nvp, &m.new_value, &m.new_value_len, "value") < 0) return -1;
            if (mlen < 1 || (meta[0] & 0x0F) != 1) return fail(c, ERR_MALFORMED, "metadata", 0, "bad metadata header");
            b->nkeys = 0;
            if (b->table_cap) memset(b->table, 0, (size_t)b->table_cap * sizeof(uint32_t));
            b->vmeta = meta;
            b->vmeta_len = mlen;
            status = b_modify(b, &m, buf, 0, len, 0, 0);
            if (status < 0 && !fail_on_error && (c->err == ERR_PATH_MISMATCH || c->err == ERR_DUPLICATE_KEY)) {
                /* the try_ forms: NULL for this row */
                c->err = ERR_NONE;
                c->err_offset = -1;
                c->out_len = start;
                b->nfields = 0;
                b->noffs = 0;
            } else {
                if (status < 0 || b_metadata(b) < 0) return -1;
                if (c->out_len - start > VARIANT_SIZE_LIMIT) return fail(c, ERR_TOO_LARGE, "value", -1, "VARIANT_SIZE_LIMIT");
                validity[row >> 3] |= (uint8_t)(1u << (row & 7));
            }
        }
        if (!(validity[row >> 3] >> (row & 7) & 1)) {
            (*null_count)++;
            b->meta_len = mstart;
        }
        if (c->out_len > INT32_MAX || b->meta_len > INT32_MAX)
            return fail(c, ERR_TOO_LARGE, "", -1, "the variants exceed one Arrow binary array; use smaller batches");
        offsets[row + 1] = (int32_t)c->out_len;
        b->meta_offsets[row + 1] = (int32_t)b->meta_len;
    }
    return 0;
}

typedef struct {
    Build *b;
    const Modify *m;
    const Piece *v, *n;
    int fail_on_error;
} ModifyLoop;

static int modify_run(void *arg, uint8_t *validity, int32_t *offsets, int64_t *null_count) {
    ModifyLoop *l = (ModifyLoop *)arg;
    return modify_loop(l->b, l->m, l->v, l->n, l->fail_on_error, validity, offsets, null_count);
}

PyDoc_STRVAR(variant_modify_doc,
             "variant_modify(piece, new_piece, mode, path, create, fail) -> ((null_count, validity, offsets, data),\n"
             "    (metadata_offsets, metadata_data))\n\n"
             "Spark's variant_set (mode 0), variant_insert (1) or variant_array_append (2) of every row of a\n"
             "Variant column, given as one piece (as extract() takes them), with the new value of the same\n"
             "row from new_piece (a Variant column of the same length). path is a tuple of keys (UTF-8\n"
             "bytes) and indexes (int); create is set's create_if_missing; without fail, a row whose path\n"
             "does not fit (code 10, byte_offset: the step) or whose key is there (code 9) is NULL.\n"
             "Raises KernelError as extract() does.");

static PyObject *py_variant_modify(PyObject *self, PyObject *args) {
    PyObject *piece_arg, *new_arg, *path_arg, *pieces = NULL, *new_pieces = NULL, *result = NULL;
    int mode, create, fail_on_error;
    Ctx c;
    Build b;
    Modify m;
    ModifyLoop loop;
    Piece *P = NULL, *N = NULL;
    Seg *segs = NULL;
    Py_ssize_t np = 0, nn = 0, nsegs;
    int64_t total = 0, total_new = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOiO!pp", &piece_arg, &new_arg, &mode, &PyTuple_Type, &path_arg, &create, &fail_on_error))
        return NULL;
    if (mode < M_SET || mode > M_APPEND) {
        PyErr_SetString(PyExc_ValueError, "mode is 0 (set), 1 (insert) or 2 (array_append)");
        return NULL;
    }
    memset(&m, 0, sizeof m);
    if (b_start(&c, &b) < 0) return NULL;
    if (parse_segments(path_arg, &segs, &nsegs, 1) < 0) goto done;
    pieces = PySequence_Tuple(piece_arg);
    new_pieces = pieces != NULL ? PySequence_Tuple(new_arg) : NULL;
    if (pieces == NULL || new_pieces == NULL) goto done;
    if (load_pieces(&c, pieces, &P, &np, &total) < 0 || load_pieces(&c, new_pieces, &N, &nn, &total_new) < 0) goto done;
    if (np != 1 || nn != 1 || total != total_new) {
        PyErr_SetString(PyExc_ValueError, "variant_modify takes one piece of each column, of equal lengths");
        goto done;
    }
    m.mode = mode;
    m.create = create;
    m.segs = segs;
    m.n = nsegs;
    loop.b = &b;
    loop.m = &m;
    loop.v = &P[0];
    loop.n = &N[0];
    loop.fail_on_error = fail_on_error;
    result = b_run(&b, total, modify_run, &loop);
done:
    Py_XDECREF(pieces);
    Py_XDECREF(new_pieces);
    free(segs);
    free(P);
    free(N);
    b_end(&b);
    return result;
}

/* ---- Spark's order-dependent aggregates (codec/spark_aggregates.c) -------------------------- */
PyDoc_STRVAR(spark_aggregate_doc,
             "spark_aggregate(kind, offsets, valid, x, y[, accuracy[, before[, tasks]]]) -> (null_count, values, validity)\n\n"
             "kind -1: Spark's ANSI sum of each list of longs (x int64), NULL where a running total overflows;\n"
             "kind -2: Spark's grouped sum of each list of decimals (x the 16-byte unscaled integers of\n"
             "Arrow's decimal128), NULL where a running total passes 38 digits;\n"
             "kind -3: Spark's sum of each list of doubles (x float64), added in order, NULL for a NULL or empty list;\n"
             "kind -4: Spark's percentile_approx of each list of doubles (x float64, in order) at the percentages y\n"
             "(float64) with `accuracy`: len(y) doubles a list, NULL for a NULL or empty list;\n"
             "`before` (kinds -4, -3 and >= 0; int64 a list, -1 for none) the values of each list before Spark's hash\n"
             "aggregation fell back to sorting (`accuracy` 0 for kinds other than -4; empty bytes for none);\n"
             "`tasks` (kinds -4 and >= 0; int64 a value) each value's Spark task: a list's tasks' buffers merged in order;\n"
             "kind -5: Spark's histogram_numeric of each list of doubles (x float64, in order) with `accuracy` bins:\n"
             "2 * accuracy + 1 doubles a list (the bins used, then each bin's x and y), NULL where no value was added;\n"
             "kind >= 0: spark_moments_column's kind over each list of doubles (y for the covariances and corr).\n"
             "offsets: length + 1 int64 into x (and y); valid: one byte per list, 0 for a NULL list.");

static PyObject *py_spark_aggregate(PyObject *self, PyObject *args) {
    int kind;
    Py_buffer offsets, valid, x, y;
    PyObject *values = NULL, *validity = NULL, *result = NULL;
    int64_t length, nulls, i, width, per_list = 1;
    long long accuracy = 0;
    Py_buffer before = {0}, tasks = {0};
    const int64_t *before_at, *tasks_at;
    (void)self;
    if (!PyArg_ParseTuple(args, "iy*y*y*y*|Ly*y*", &kind, &offsets, &valid, &x, &y, &accuracy, &before, &tasks)) return NULL;
    before_at = before.buf != NULL && before.len > 0 ? (const int64_t *)before.buf : NULL;
    tasks_at = tasks.buf != NULL && tasks.len > 0 ? (const int64_t *)tasks.buf : NULL;
    length = (int64_t)(offsets.len / 8) - 1;
    width = kind == -2 ? 16 : kind == -1 ? (int64_t)sizeof(int64_t) : (int64_t)sizeof(double);
    if (kind == -4) per_list = (int64_t)(y.len / (Py_ssize_t)sizeof(double));
    if (kind == -5) per_list = 2 * (int64_t)accuracy + 1;
    if (length < 0 || valid.len < length || kind < -5 || kind >= SPARK_MOMENT_KINDS
        || (kind == -5 && (accuracy < 2 || accuracy > 1000000))
        || (before_at != NULL && (kind == -1 || kind == -2 || before.len != length * (Py_ssize_t)sizeof(int64_t)))
        || (tasks_at != NULL && (kind == -1 || kind == -2 || kind == -3 || tasks.len * width != x.len * (Py_ssize_t)sizeof(int64_t)))
        || (kind == -4 && (per_list <= 0 || accuracy <= 0 || accuracy > 2147483647LL))) {
        PyErr_SetString(PyExc_ValueError, "spark_aggregate: bad kind, offsets or validity");
        goto done;
    }
    for (i = 0; i <= length; i++) {
        int64_t at = ((const int64_t *)offsets.buf)[i];
        if (at < 0 || at * width > x.len || (kind >= SPARK_COVAR_POP && at * width > y.len)
            || (i > 0 && at < ((const int64_t *)offsets.buf)[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "spark_aggregate: the offsets point past the values");
            goto done;
        }
    }
    values = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * (kind == -2 ? 16 : 8) * per_list));
    validity = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
    if (values == NULL || validity == NULL) goto done;
    if (kind == -5) {
        Py_BEGIN_ALLOW_THREADS
        nulls = spark_histogram_numeric_column((const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const double *)x.buf,
                                               before_at, tasks_at, (int64_t)accuracy, (double *)PyBytes_AS_STRING(values),
                                               (uint8_t *)PyBytes_AS_STRING(validity));
        Py_END_ALLOW_THREADS
        if (nulls == -1) {
            PyErr_SetString(PyExc_ValueError, "histogram_numeric: the number of bins is out of range");
            goto done;
        }
        if (nulls < 0) {
            PyErr_NoMemory();
            goto done;
        }
    } else if (kind == -4) {
        Py_BEGIN_ALLOW_THREADS
        nulls = spark_percentile_approx_column((const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const double *)x.buf,
                                               before_at, tasks_at, (const double *)y.buf, per_list, (int64_t)accuracy,
                                               (double *)PyBytes_AS_STRING(values), (uint8_t *)PyBytes_AS_STRING(validity));
        Py_END_ALLOW_THREADS
        if (nulls < 0) {
            PyErr_NoMemory();
            goto done;
        }
    } else if (kind == -2)
        nulls = spark_decimal_sum_column((const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const unsigned char *)x.buf,
                                         (unsigned char *)PyBytes_AS_STRING(values), (uint8_t *)PyBytes_AS_STRING(validity));
    else if (kind == -3)
        nulls = spark_double_sum_column((const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const double *)x.buf,
                                        before_at, (double *)PyBytes_AS_STRING(values),
                                        (uint8_t *)PyBytes_AS_STRING(validity));
    else if (kind == -1)
        nulls = spark_long_sum_column((const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const int64_t *)x.buf,
                                      (int64_t *)PyBytes_AS_STRING(values), (uint8_t *)PyBytes_AS_STRING(validity));
    else
        nulls = spark_moments_column(kind, (const int64_t *)offsets.buf, (const uint8_t *)valid.buf, length, (const double *)x.buf,
                                     (const double *)y.buf, before_at, tasks_at, (double *)PyBytes_AS_STRING(values),
                                     (uint8_t *)PyBytes_AS_STRING(validity));
    result = Py_BuildValue("LOO", (long long)nulls, values, validity);
done:
    Py_XDECREF(values);
    Py_XDECREF(validity);
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&valid);
    PyBuffer_Release(&x);
    PyBuffer_Release(&y);
    if (before.buf != NULL) PyBuffer_Release(&before);
    if (tasks.buf != NULL) PyBuffer_Release(&tasks);
    return result;
}

PyDoc_STRVAR(spark_order_lists_doc,
             "spark_order_lists(offsets, positions) -> permutation\n\n"
             "offsets: length + 1 int64 into positions (int64); the int64 indices of each list's items in order of\n"
             "their positions, stably (spark_aggregates.h).");

static PyObject *py_spark_order_lists(PyObject *self, PyObject *args) {
    Py_buffer offsets, positions;
    PyObject *permutation = NULL;
    int64_t length, i;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*", &offsets, &positions)) return NULL;
    length = (int64_t)(offsets.len / 8) - 1;
    if (length < 0) {
        PyErr_SetString(PyExc_ValueError, "spark_order_lists: no offsets");
        goto done;
    }
    for (i = 0; i <= length; i++) {
        int64_t at = ((const int64_t *)offsets.buf)[i];
        if (at < 0 || at * 8 > positions.len || (i > 0 && at < ((const int64_t *)offsets.buf)[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "spark_order_lists: the offsets point past the positions");
            goto done;
        }
    }
    permutation = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)positions.len);
    if (permutation == NULL) goto done;
    /* the items before the first list's start, and after the last's end, stay where they are */
    for (i = 0; i < positions.len / 8; i++) ((int64_t *)PyBytes_AS_STRING(permutation))[i] = i;
    if (spark_order_lists((const int64_t *)offsets.buf, length, (const int64_t *)positions.buf,
                          (int64_t *)PyBytes_AS_STRING(permutation)) < 0) {
        Py_CLEAR(permutation);
        PyErr_NoMemory();
    }
done:
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&positions);
    return permutation;
}

PyDoc_STRVAR(spark_mode_choose_doc,
             "spark_mode_choose(offsets, mixed, counts[, tasks, ids]) -> chosen\n\n"
             "Spark's mode(x) of each group of distinct keys (int64 offsets, one more than the groups;\n"
             "the keys in the order Spark first met them, with their int32 OpenHashSet hashes and int64\n"
             "counts): the int64 index of the key chosen (-1 for an empty group), see spark_aggregates.h.");

static PyObject *py_spark_mode_choose(PyObject *self, PyObject *args) {
    Py_buffer offsets, mixed, counts, tasks = {0}, ids = {0};
    PyObject *chosen = NULL;
    int64_t length, i, keys;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*y*y*|y*y*", &offsets, &mixed, &counts, &tasks, &ids)) return NULL;
    length = (int64_t)(offsets.len / 8) - 1;
    keys = (int64_t)(mixed.len / 4);
    if (length < 0 || counts.len != keys * 8 || (tasks.buf != NULL && (tasks.len != keys * 8 || ids.buf == NULL || ids.len != keys * 8))) {
        PyErr_SetString(PyExc_ValueError, "spark_mode_choose: no offsets, or the hashes and counts differ in length");
        goto done;
    }
    for (i = 0; i <= length; i++) {
        int64_t at = ((const int64_t *)offsets.buf)[i];
        if (at < 0 || at > keys || (i > 0 && at < ((const int64_t *)offsets.buf)[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "spark_mode_choose: the offsets point past the keys");
            goto done;
        }
    }
    if (ids.buf != NULL) {
        /* each entry's key's first entry lies in its own group, at or before it */
        int64_t g;
        for (g = 0; g < length; g++) {
            int64_t begin = ((const int64_t *)offsets.buf)[g], end = ((const int64_t *)offsets.buf)[g + 1];
            for (i = begin; i < end; i++) {
                int64_t id = ((const int64_t *)ids.buf)[i];
                if (id < begin || id > i) {
                    PyErr_SetString(PyExc_ValueError, "spark_mode_choose: an id outside its group");
                    goto done;
                }
            }
        }
    }
    chosen = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(length * 8));
    if (chosen == NULL) goto done;
    if (spark_mode_choose((const int64_t *)offsets.buf, length, (const int32_t *)mixed.buf, (const int64_t *)counts.buf,
                          (const int64_t *)tasks.buf, (const int64_t *)ids.buf, (int64_t *)PyBytes_AS_STRING(chosen)) < 0) {
        Py_CLEAR(chosen);
        PyErr_NoMemory();
    }
done:
    PyBuffer_Release(&offsets);
    PyBuffer_Release(&mixed);
    PyBuffer_Release(&counts);
    if (tasks.buf != NULL) PyBuffer_Release(&tasks);
    if (ids.buf != NULL) PyBuffer_Release(&ids);
    return chosen;
}

static PyMethodDef methods[] = {
    {"unshred", py_unshred, METH_VARARGS, unshred_doc},
    {"extract", py_extract, METH_VARARGS, extract_doc},
    {"to_json", py_to_json, METH_VARARGS, to_json_doc},
    {"schema_of_variant", py_schema_of_variant, METH_VARARGS, schema_of_variant_doc},
    {"format_java", py_format_java, METH_VARARGS, format_java_doc},
    {"format_number_pattern", py_format_number_pattern, METH_VARARGS, format_number_pattern_doc},
    {"format_java_formatter", py_format_java_formatter, METH_VARARGS, format_java_formatter_doc},
    {"get_json_object", py_get_json_object, METH_VARARGS, get_json_object_doc},
    {"json_shape", py_json_shape, METH_VARARGS, json_shape_doc},
    {"parse_url", py_parse_url, METH_VARARGS, parse_url_doc},
    {"from_json", py_from_json, METH_VARARGS, from_json_doc},
    {"explode", py_explode, METH_VARARGS, explode_doc},
    {"is_valid_variant", py_is_valid_variant, METH_VARARGS, is_valid_variant_doc},
    {"to_variant", py_to_variant, METH_VARARGS, to_variant_doc},
    {"nested_hash", py_nested_hash, METH_VARARGS, nested_hash_doc},
    {"variant_delete", py_variant_delete, METH_VARARGS, variant_delete_doc},
    {"variant_modify", py_variant_modify, METH_VARARGS, variant_modify_doc},
    {"strict_math", py_strict_math, METH_VARARGS, strict_math_doc},
    {"spark_hash", py_spark_hash, METH_VARARGS, spark_hash_doc},
    {"spark_conv", py_spark_conv, METH_VARARGS, spark_conv_doc},
    {"spark_number_format", py_spark_number_format, METH_VARARGS, spark_number_format_doc},
    {"spark_mode_choose", py_spark_mode_choose, METH_VARARGS, spark_mode_choose_doc},
    {"spark_hll", py_spark_hll, METH_VARARGS, spark_hll_doc},
    {"spark_aggregate", py_spark_aggregate, METH_VARARGS, spark_aggregate_doc},
    {"spark_order_lists", py_spark_order_lists, METH_VARARGS, spark_order_lists_doc},
    {"parse_datetimes", py_parse_datetimes, METH_VARARGS, parse_datetimes_doc},
    {"parse_formatted", py_parse_formatted, METH_VARARGS, parse_formatted_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "vpush.codec._native",
    "The compiled kernels for Variant columns: reconstruction, extraction, JSON and schemas (see vpush.codec.native).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m;
    m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    KernelError = PyErr_NewException("vpush.codec._native.KernelError", NULL, NULL);
    if (KernelError == NULL || PyModule_AddObject(m, "KernelError", KernelError) < 0) {
        Py_XDECREF(KernelError);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(KernelError);
    if (PyModule_AddIntConstant(m, "ERR_UNSUPPORTED", ERR_UNSUPPORTED) < 0 ||
        PyModule_AddIntConstant(m, "ERR_SCHEMA", ERR_SCHEMA) < 0 ||
        PyModule_AddIntConstant(m, "ERR_SHREDDING", ERR_SHREDDING) < 0 ||
        PyModule_AddIntConstant(m, "ERR_MALFORMED", ERR_MALFORMED) < 0 ||
        PyModule_AddIntConstant(m, "ERR_TOO_LARGE", ERR_TOO_LARGE) < 0 ||
        PyModule_AddIntConstant(m, "ERR_UNKNOWN_TYPE", ERR_UNKNOWN_TYPE) < 0 ||
        PyModule_AddIntConstant(m, "MAX_LEVEL_DEPTH", MAX_LEVEL_DEPTH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
