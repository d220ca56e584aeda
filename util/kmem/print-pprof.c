// SPDX-License-Identifier: GPL-2.0
/*
 * A writer of the pprof format: see print-pprof.h.  The field numbers
 * are profile.proto's; the wire format is protobuf's: a field is a key
 * (its number << 3 | its wire type) and a varint (type 0) or a length
 * and that many bytes (type 2: strings, messages, packed numbers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "count.h"
#include "print-pprof.h"
#include "table-live.h"
#include "utf8.h"

/* Wire types. */
#define WIRE_VARINT	0
#define WIRE_BYTES	2

/* Field numbers of profile.proto's messages. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE, PROFILE_MAPPING,
	PROFILE_LOCATION, PROFILE_FUNCTION, PROFILE_STRING_TABLE,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS, PROFILE_PERIOD_TYPE,
	PROFILE_PERIOD, PROFILE_COMMENT, PROFILE_DEFAULT_SAMPLE_TYPE,
};

enum { VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE, SAMPLE_LABEL };
enum { LABEL_KEY = 1, LABEL_STR, LABEL_NUM, LABEL_NUM_UNIT };

enum {
	MAPPING_ID = 1, MAPPING_MEMORY_START, MAPPING_MEMORY_LIMIT,
	MAPPING_FILE_OFFSET, MAPPING_FILENAME, MAPPING_BUILD_ID,
	MAPPING_HAS_FUNCTIONS,
};

enum {
	LOCATION_ID = 1, LOCATION_MAPPING_ID, LOCATION_ADDRESS, LOCATION_LINE,
};

enum { LINE_FUNCTION_ID = 1 };
enum { FUNCTION_ID = 1, FUNCTION_NAME, FUNCTION_SYSTEM_NAME };

/* --- protobuf bytes --------------------------------------------------- */

/* A growing buffer; a failed allocation is remembered, not returned. */
struct pb {
	u8	*buf;
	size_t	len;
	size_t	size;
	bool	nomem;
};

static bool pb_reserve(struct pb *b, size_t more)
{
	if (!b->nomem && kmem_grow(&b->buf, &b->size, b->len, more, 1))
		b->nomem = true;
	return !b->nomem;
}

static void pb_put(struct pb *b, const void *data, size_t len)
{
	if (len && pb_reserve(b, len)) {
		memcpy(b->buf + b->len, data, len);
		b->len += len;
	}
}

static size_t varint_len(u64 v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void pb_varint(struct pb *b, u64 v)
{
	if (!pb_reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (u8)v | 0x80;
		v >>= 7;
	}
	b->buf[b->len++] = (u8)v;
}

static void pb_key(struct pb *b, int field, int wire)
{
	pb_varint(b, (u64)field << 3 | wire);
}

/*
 * A number; proto3 leaves out a field of value 0.  An int64 is two's
 * complement: a negative number takes ten bytes.
 */
static void pb_number(struct pb *b, int field, u64 v)
{
	if (!v)
		return;
	pb_key(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, int field, const void *data, size_t len)
{
	pb_key(b, field, WIRE_BYTES);
	pb_varint(b, len);
	pb_put(b, data, len);
}

/* Repeated numbers, packed: one length, then the varints. */
static void pb_packed(struct pb *b, int field, const u64 *v, size_t nr)
{
	size_t i, len = 0;

	if (!nr)
		return;
	for (i = 0; i < nr; i++)
		len += varint_len(v[i]);
	pb_key(b, field, WIRE_BYTES);
	pb_varint(b, len);
	for (i = 0; i < nr; i++)
		pb_varint(b, v[i]);
}

/* A message built in @msg, as field @field of @b. */
static void pb_message(struct pb *b, int field, struct pb *msg)
{
	if (msg->nomem)
		b->nomem = true;
	pb_bytes(b, field, msg->buf, msg->len);
	msg->len = 0;
}

/* --- the profile's tables --------------------------------------------- */

struct string {
	char	*s;
	u64	function;	/* id of the function of this name; 0: none */
};

struct location {
	u64	addr;
	u64	mapping;	/* id; 0: none */
	u64	function;	/* id; 0: no line */
};

struct mapping {
	u64	start, limit, offset;
	u64	file, build_id;	/* strings */
	bool	has_functions;
};

struct kmem_pprof {
	struct kmem_pprof_config	config;
	u64				types[KMEM_PPROF_MAX_VALUES][2];
	u64				period_type[2];
	u64				default_type;
	/* The string table, strings[0] "", and its index by hash. */
	struct string			*strings;
	size_t				nr_strings, max_strings;
	/*
	 * Its index: a slot is a string's hash, how many strings of that
	 * hash came before it (64 bits alike are all but unheard of, but
	 * must not make two strings one), then its index + 1.
	 */
	struct kmem_live		string_ids;
	u64				*functions;	/* names, by id - 1 */
	size_t				nr_functions, max_functions;
	struct location			*locations;	/* by id - 1 */
	size_t				nr_locations, max_locations;
	/* Ids by address: a slot is the address, 0, then the id. */
	struct kmem_live		location_ids;
	struct mapping			*mappings;	/* by id - 1 */
	size_t				nr_mappings, max_mappings;
	u64				*comments;	/* strings */
	size_t				nr_comments, max_comments;
	struct pb			samples;	/* encoded as added */
	size_t				nr_samples;
	struct pb			msg, sub;	/* scratch */
	struct pb			out;
	u64				*ids;		/* a sample's locations */
	size_t				max_ids;
};

static u64 hash_string(const char *s)
{
	u64 h = 14695981039346656037ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/*
 * A copy of @s that is well-formed UTF-8, as protobuf wants of a string:
 * each maximal subpart of an ill-formed sequence becomes U+FFFD.
 */
static char *utf8_copy(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0;
	char *d = malloc(3 * len + 1);
	int n;

	if (!d)
		return NULL;
	while (i < len) {
		const unsigned char *c = (const unsigned char *)s + i;

		n = *c < 0x80 ? 1 : kmem_utf8_sequence(c, len - i);
		if (n > 0) {
			memcpy(d + o, c, n);
			o += n;
			i += n;
		} else {
			memcpy(d + o, KMEM_UTF8_REPLACEMENT, 3);
			o += 3;
			i += -n;
		}
	}
	d[o] = '\0';
	return d;
}

/* The slot of @s in the index, or the empty one for it, and its @key. */
static u64 *string_slot(struct kmem_pprof *p, const char *s, u64 *key)
{
	u64 *slot;

	key[0] = hash_string(s);
	for (key[1] = 0;; key[1]++) {
		slot = kmem_live__probe_key(&p->string_ids, key, 2,
					    kmem_live__hash_words(key, 2));
		if (kmem_live__empty_mark(slot, 2) ||
		    !strcmp(p->strings[slot[2] - 1].s, s))
			return slot;
	}
}

/* The index of @s (NULL: "") in the string table, added if new. */
static s64 intern(struct kmem_pprof *p, const char *s)
{
	char *copy = utf8_copy(s ? s : "");
	u64 key[2], *slot;

	if (!copy)
		return -ENOMEM;
	slot = string_slot(p, copy, key);
	if (!kmem_live__empty_mark(slot, 2)) {
		free(copy);
		return slot[2] - 1;
	}
	if (p->nr_strings < UINT32_MAX - 1 &&
	    !kmem_grow(&p->strings, &p->max_strings, p->nr_strings, 1,
		       sizeof(*p->strings)))
		slot = kmem_live__add(&p->string_ids, slot, key);
	else
		slot = NULL;
	if (!slot) {
		free(copy);
		return -ENOMEM;
	}
	p->strings[p->nr_strings] = (struct string){ .s = copy };
	slot[2] = p->nr_strings + 1;
	return p->nr_strings++;
}

/* Intern each of @n strings into @idx; 0 or -ENOMEM. */
static int intern_all(struct kmem_pprof *p, const char * const *s, u64 *idx,
		      size_t n)
{
	size_t i;
	s64 r;

	for (i = 0; i < n; i++) {
		r = intern(p, s[i]);
		if (r < 0)
			return r;
		idx[i] = r;
	}
	return 0;
}

static bool config_valid(const struct kmem_pprof_config *c)
{
	size_t i;

	if (!c->sample_types || !c->nr_sample_types ||
	    c->nr_sample_types > KMEM_PPROF_MAX_VALUES)
		return false;
	for (i = 0; i < c->nr_sample_types; i++)
		if (!c->sample_types[i].type || !*c->sample_types[i].type ||
		    !c->sample_types[i].unit || !*c->sample_types[i].unit)
			return false;
	return true;
}

static int intern_type(struct kmem_pprof *p, const struct kmem_pprof_type *t,
		       u64 *idx)
{
	return intern_all(p, (const char *[]){ t->type, t->unit }, idx, 2);
}

static int intern_config(struct kmem_pprof *p,
			 const struct kmem_pprof_config *c)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < c->nr_sample_types; i++)
		err = intern_type(p, &c->sample_types[i], p->types[i]);
	if (!err && c->period_type.type)
		err = intern_type(p, &c->period_type, p->period_type);
	if (!err && c->default_sample_type)
		err = intern_all(p, &c->default_sample_type, &p->default_type, 1);
	return err;
}

struct kmem_pprof *kmem_pprof__new(const struct kmem_pprof_config *config)
{
	struct kmem_pprof *p;

	if (!config_valid(config))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (kmem_live__init_keyed(&p->location_ids, 3 * sizeof(u64), 2, 6) ||
	    kmem_live__init_keyed(&p->string_ids, 3 * sizeof(u64), 2, 6)) {
		kmem_pprof__delete(p);
		return NULL;
	}
	/* The strings are interned: the caller's need not outlive the call. */
	p->config = *config;
	p->config.sample_types = NULL;
	p->config.default_sample_type = NULL;
	p->config.period_type = (struct kmem_pprof_type){ NULL, NULL };
	if (intern(p, "") < 0 || intern_config(p, config)) {
		kmem_pprof__delete(p);
		return NULL;
	}
	return p;
}

void kmem_pprof__delete(struct kmem_pprof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_strings; i++)
		free(p->strings[i].s);
	free(p->strings);
	kmem_live__exit(&p->string_ids);
	free(p->functions);
	free(p->locations);
	kmem_live__exit(&p->location_ids);
	free(p->mappings);
	free(p->comments);
	free(p->samples.buf);
	free(p->msg.buf);
	free(p->sub.buf);
	free(p->out.buf);
	free(p->ids);
	free(p);
}

int kmem_pprof__add_comment(struct kmem_pprof *p, const char *text)
{
	s64 s = intern(p, text);

	if (s < 0 || kmem_grow(&p->comments, &p->max_comments, p->nr_comments,
			       1, sizeof(*p->comments)))
		return -ENOMEM;
	p->comments[p->nr_comments++] = s;
	return 0;
}

int kmem_pprof__add_mapping(struct kmem_pprof *p,
			    const struct kmem_pprof_mapping *m)
{
	const char *s[2] = { m->file, m->build_id };
	u64 idx[2] = { 0, 0 };
	int err;

	if (m->limit <= m->start || p->nr_locations || p->nr_samples)
		return -EINVAL;
	err = intern_all(p, s, idx, 2);
	if (!err)
		err = kmem_grow(&p->mappings, &p->max_mappings,
				p->nr_mappings, 1, sizeof(*p->mappings));
	if (err)
		return err;
	p->mappings[p->nr_mappings] = (struct mapping){
		.start = m->start, .limit = m->limit, .offset = m->offset,
		.file = idx[0], .build_id = idx[1],
		.has_functions = m->has_functions,
	};
	return ++p->nr_mappings;
}

/* The id of the function named @name, added if new; -ENOMEM. */
static s64 function_id(struct kmem_pprof *p, const char *name)
{
	s64 s = intern(p, name);

	if (s < 0)
		return s;
	if (p->strings[s].function)
		return p->strings[s].function;
	if (kmem_grow(&p->functions, &p->max_functions, p->nr_functions, 1,
		      sizeof(*p->functions)))
		return -ENOMEM;
	p->functions[p->nr_functions++] = s;
	p->strings[s].function = p->nr_functions;
	return p->nr_functions;
}

static u64 mapping_of(const struct kmem_pprof *p, u64 addr)
{
	size_t i;

	for (i = 0; i < p->nr_mappings; i++)
		if (addr >= p->mappings[i].start && addr < p->mappings[i].limit)
			return i + 1;
	return 0;
}

/* A new address: its location, and the function its name names. */
static s64 new_location(struct kmem_pprof *p, u64 *slot, const u64 *key)
{
	const char *name = NULL;
	u64 addr = key[0];
	s64 function = 0;

	if (p->nr_locations >= UINT32_MAX - 1 ||
	    kmem_grow(&p->locations, &p->max_locations, p->nr_locations, 1,
		      sizeof(*p->locations)))
		return -ENOMEM;
	if (p->config.name_of)
		name = p->config.name_of(addr, p->config.arg);
	if (name && *name) {
		function = function_id(p, name);
		if (function < 0)
			return function;
	}
	slot = kmem_live__add(&p->location_ids, slot, key);
	if (!slot)
		return -ENOMEM;
	p->locations[p->nr_locations] = (struct location){
		.addr = addr, .mapping = mapping_of(p, addr),
		.function = function,
	};
	slot[2] = ++p->nr_locations;
	return p->nr_locations;
}

s64 kmem_pprof__add_location(struct kmem_pprof *p, u64 addr)
{
	u64 key[2] = { addr, 0 }, *slot;

	slot = kmem_live__probe_key(&p->location_ids, key, 2,
				    kmem_live__hash_words(key, 2));
	if (kmem_live__empty_mark(slot, 2))
		return new_location(p, slot, key);
	return slot[2];
}

/* A label as a message in p->sub; 0, -EINVAL or -ENOMEM. */
static int encode_label(struct kmem_pprof *p, const struct kmem_pprof_label *l)
{
	const char *s[3] = { l->key, l->str, l->unit };
	u64 idx[3] = { 0, 0, 0 };
	int err;

	if (!l->key || !*l->key || (l->str && l->unit))
		return -EINVAL;
	/* A NULL is "", interned first: index 0, nothing added. */
	err = intern_all(p, s, idx, 3);
	if (err)
		return err;
	pb_number(&p->sub, LABEL_KEY, idx[0]);
	pb_number(&p->sub, LABEL_STR, idx[1]);
	if (!l->str)
		pb_number(&p->sub, LABEL_NUM, (u64)l->num);
	pb_number(&p->sub, LABEL_NUM_UNIT, idx[2]);
	return 0;
}

static int sample_ids(struct kmem_pprof *p, const u64 *addrs, size_t nr)
{
	size_t i;
	s64 id;

	if (kmem_grow(&p->ids, &p->max_ids, 0, nr, sizeof(*p->ids)))
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		id = kmem_pprof__add_location(p, addrs[i]);
		if (id < 0)
			return id;
		p->ids[i] = id;
	}
	return 0;
}

int kmem_pprof__add_sample(struct kmem_pprof *p, const u64 *addrs, size_t nr,
			   const s64 *values,
			   const struct kmem_pprof_label *labels,
			   size_t nr_labels)
{
	u64 v[KMEM_PPROF_MAX_VALUES];
	size_t i;
	int err;

	err = sample_ids(p, addrs, nr);
	if (err)
		return err;
	p->msg.len = 0;
	p->sub.len = 0;
	pb_packed(&p->msg, SAMPLE_LOCATION_ID, p->ids, nr);
	for (i = 0; i < p->config.nr_sample_types; i++)
		v[i] = (u64)values[i];
	pb_packed(&p->msg, SAMPLE_VALUE, v, p->config.nr_sample_types);
	for (i = 0; i < nr_labels; i++) {
		err = encode_label(p, &labels[i]);
		if (err)
			return err;
		pb_message(&p->msg, SAMPLE_LABEL, &p->sub);
	}
	if (p->msg.nomem || p->sub.nomem)
		return -ENOMEM;
	pb_message(&p->samples, PROFILE_SAMPLE, &p->msg);
	if (p->samples.nomem)
		return -ENOMEM;
	p->nr_samples++;
	return 0;
}

struct kmem_pprof_sizes kmem_pprof__sizes(const struct kmem_pprof *p)
{
	return (struct kmem_pprof_sizes){
		p->nr_samples, p->nr_locations, p->nr_functions, p->nr_strings,
	};
}

/* --- the profile written ---------------------------------------------- */

static void encode_value_type(struct kmem_pprof *p, int field, const u64 *t)
{
	pb_number(&p->msg, VALUE_TYPE_TYPE, t[0]);
	pb_number(&p->msg, VALUE_TYPE_UNIT, t[1]);
	pb_message(&p->out, field, &p->msg);
}

static void encode_mapping(struct kmem_pprof *p, size_t i)
{
	const struct mapping *m = &p->mappings[i];

	pb_number(&p->msg, MAPPING_ID, i + 1);
	pb_number(&p->msg, MAPPING_MEMORY_START, m->start);
	pb_number(&p->msg, MAPPING_MEMORY_LIMIT, m->limit);
	pb_number(&p->msg, MAPPING_FILE_OFFSET, m->offset);
	pb_number(&p->msg, MAPPING_FILENAME, m->file);
	pb_number(&p->msg, MAPPING_BUILD_ID, m->build_id);
	pb_number(&p->msg, MAPPING_HAS_FUNCTIONS, m->has_functions);
	pb_message(&p->out, PROFILE_MAPPING, &p->msg);
}

static void encode_location(struct kmem_pprof *p, size_t i)
{
	const struct location *l = &p->locations[i];

	pb_number(&p->msg, LOCATION_ID, i + 1);
	pb_number(&p->msg, LOCATION_MAPPING_ID, l->mapping);
	pb_number(&p->msg, LOCATION_ADDRESS, l->addr);
	if (l->function) {
		pb_number(&p->sub, LINE_FUNCTION_ID, l->function);
		pb_message(&p->msg, LOCATION_LINE, &p->sub);
	}
	pb_message(&p->out, PROFILE_LOCATION, &p->msg);
}

/* A kernel function has one name: system_name, optional, is left out. */
static void encode_function(struct kmem_pprof *p, size_t i)
{
	pb_number(&p->msg, FUNCTION_ID, i + 1);
	pb_number(&p->msg, FUNCTION_NAME, p->functions[i]);
	pb_message(&p->out, PROFILE_FUNCTION, &p->msg);
}

const u8 *kmem_pprof__encode(struct kmem_pprof *p, size_t *len)
{
	struct pb *out = &p->out;
	size_t i;

	out->len = 0;
	p->msg.len = 0;
	p->sub.len = 0;
	for (i = 0; i < p->config.nr_sample_types; i++)
		encode_value_type(p, PROFILE_SAMPLE_TYPE, p->types[i]);
	pb_put(out, p->samples.buf, p->samples.len);
	for (i = 0; i < p->nr_mappings; i++)
		encode_mapping(p, i);
	for (i = 0; i < p->nr_locations; i++)
		encode_location(p, i);
	for (i = 0; i < p->nr_functions; i++)
		encode_function(p, i);
	for (i = 0; i < p->nr_strings; i++)
		pb_bytes(out, PROFILE_STRING_TABLE, p->strings[i].s,
			 strlen(p->strings[i].s));
	pb_number(out, PROFILE_TIME_NANOS, (u64)p->config.time_nanos);
	pb_number(out, PROFILE_DURATION_NANOS, (u64)p->config.duration_nanos);
	if (p->period_type[0])
		encode_value_type(p, PROFILE_PERIOD_TYPE, p->period_type);
	pb_number(out, PROFILE_PERIOD, (u64)p->config.period);
	pb_packed(out, PROFILE_COMMENT, p->comments, p->nr_comments);
	pb_number(out, PROFILE_DEFAULT_SAMPLE_TYPE, p->default_type);
	if (out->nomem || p->msg.nomem || p->sub.nomem)
		return NULL;
	*len = out->len;
	return out->buf ? out->buf : (const u8 *)"";
}

/* Deflate what is in @zs to @fp, as a gzip member; 0, -errno, -ENOMEM. */
static int deflate_to(z_stream *zs, FILE *fp)
{
	u8 chunk[16384];
	int ret;

	do {
		zs->next_out = chunk;
		zs->avail_out = sizeof(chunk);
		ret = deflate(zs, Z_FINISH);
		if (ret == Z_STREAM_ERROR || ret == Z_BUF_ERROR)
			return -ENOMEM;
		if (fwrite(chunk, 1, sizeof(chunk) - zs->avail_out, fp) !=
		    sizeof(chunk) - zs->avail_out)
			return -errno ?: -EIO;
	} while (ret != Z_STREAM_END);
	return 0;
}

int kmem_pprof__write(struct kmem_pprof *p, FILE *fp)
{
	z_stream zs = { .zalloc = Z_NULL };
	const u8 *buf;
	size_t len;
	int err;

	buf = kmem_pprof__encode(p, &len);
	if (!buf || len > UINT32_MAX)
		return -ENOMEM;
	/* 15 + 16: the largest window, in a gzip wrapper, not zlib's. */
	if (deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	zs.next_in = (u8 *)buf;
	zs.avail_in = len;
	err = deflate_to(&zs, fp);
	deflateEnd(&zs);
	if (!err && (fflush(fp) || ferror(fp)))
		err = -errno ?: -EIO;
	return err;
}
