// SPDX-License-Identifier: GPL-2.0
/*
 * The task behind each allocation: see count-tasks.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/zalloc.h>

#include "comm.h"
#include "count-tasks.h"
#include "count.h"
#include "hashmap.h"
#include "intlist.h"
#include "machine.h"
#include "rwsem.h"
#include "strlist.h"
#include "thread.h"

#define CACHE_BITS	8

/* What was found of a thread, good from one time to another. */
struct cached_task {
	u32	tid;
	u32	key;
	u64	from;		/* the time its name began */
	u64	until;		/* the time a newer name began, or ~0 */
	bool	valid;
	bool	filtered;
};

struct kmem_tasks {
	struct kmem_tasks_config config;
	struct machine		*machine;
	struct hashmap		*comm_ids;	/* name -> id */
	char			**names;	/* id - 1 -> name */
	size_t			nr_names;
	size_t			max_names;
	struct cached_task	cache[1 << CACHE_BITS];
};

size_t kmem_name_hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

bool kmem_name_equal(long a, long b, void *ctx __maybe_unused)
{
	return !strcmp((const char *)a, (const char *)b);
}

struct kmem_tasks *kmem_tasks__new(struct machine *machine,
				   const struct kmem_tasks_config *config)
{
	struct kmem_tasks *tasks = zalloc(sizeof(*tasks));

	if (!tasks)
		return NULL;
	tasks->config = *config;
	tasks->machine = machine;
	tasks->comm_ids = hashmap__new(kmem_name_hash, kmem_name_equal, NULL);
	if (IS_ERR(tasks->comm_ids)) {
		free(tasks);
		return NULL;
	}
	return tasks;
}

void kmem_tasks__delete(struct kmem_tasks *tasks)
{
	size_t i;

	if (!tasks)
		return;
	/* The map's keys are the names. */
	hashmap__free(tasks->comm_ids);
	for (i = 0; i < tasks->nr_names; i++)
		free(tasks->names[i]);
	free(tasks->names);
	free(tasks);
}

/* The id of a command name, 1 for the first: new names get the next. */
static int comm_id(struct kmem_tasks *tasks, const char *name, u32 *id)
{
	long found;
	char *copy;

	if (hashmap__find(tasks->comm_ids, name, &found)) {
		*id = found;
		return 0;
	}
	if (kmem_grow(&tasks->names, &tasks->max_names, tasks->nr_names, 1,
		      sizeof(*tasks->names)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	if (hashmap__add(tasks->comm_ids, copy, tasks->nr_names + 1)) {
		free(copy);
		return -ENOMEM;
	}
	tasks->names[tasks->nr_names++] = copy;
	*id = tasks->nr_names;
	return 0;
}

const char *kmem_tasks__comm(const struct kmem_tasks *tasks, u32 id)
{
	if (!id || id > tasks->nr_names)
		return "(unknown)";
	return tasks->names[id - 1];
}

/*
 * The name @thread had at @time, and the times it had it from and until;
 * NULL if it has none.  perf keeps a thread's names newest first, each
 * with the time it began.  The caller holds the thread's comm_lock.
 */
static const char *comm_at(struct thread *thread, u64 time, u64 *from,
			   u64 *until)
{
	struct comm *comm, *found = NULL;
	u64 newer = ~0ULL;

	list_for_each_entry(comm, thread__comm_list(thread), list) {
		found = comm;
		if (comm->start <= time)
			break;
		newer = comm->start;
	}
	if (!found)
		return NULL;
	*from = found->start <= time ? found->start : 0;
	*until = found->start <= time ? newer : found->start;
	return comm__str(found);
}

static bool left_out(const struct kmem_tasks *tasks, int pid, int tid,
		     const char *comm)
{
	const struct kmem_tasks_config *c = &tasks->config;

	return (c->pids && !intlist__has_entry(c->pids, pid)) ||
	       (c->tids && !intlist__has_entry(c->tids, tid)) ||
	       (c->comms && !strlist__has_entry(c->comms, comm));
}

/* The key and filter of a task of @pid and @tid, named @comm. */
static int set_task(struct kmem_tasks *tasks, struct cached_task *ct, int pid,
		    u32 tid, const char *comm)
{
	ct->filtered = left_out(tasks, pid, tid, comm);
	switch (tasks->config.key) {
	case KMEM_TASK_PID:
		ct->key = pid;
		return 0;
	case KMEM_TASK_COMM:
		return comm_id(tasks, comm, &ct->key);
	case KMEM_TASK_NONE:
	default:
		ct->key = 0;
		return 0;
	}
}

/* Look @tid up in perf's threads, as of @time. */
static int find_task(struct kmem_tasks *tasks, struct cached_task *ct,
		     u32 tid, u64 time)
{
	struct thread *thread = machine__find_thread(tasks->machine, -1, tid);
	const char *comm = NULL;
	char noname[16];
	int pid = tid, err;

	ct->tid = tid;
	ct->from = 0;
	ct->until = ~0ULL;
	if (thread) {
		if (thread__pid(thread) > 0)
			pid = thread__pid(thread);
		down_read(thread__comm_lock(thread));
		comm = comm_at(thread, time, &ct->from, &ct->until);
		if (comm)
			err = set_task(tasks, ct, pid, tid, comm);
		up_read(thread__comm_lock(thread));
		thread__put(thread);
	}
	if (!comm) {
		/* As perf names a thread it has no name for. */
		snprintf(noname, sizeof(noname), ":%u", tid);
		err = set_task(tasks, ct, pid, tid, noname);
	}
	ct->valid = !err;
	return err;
}

int kmem_tasks__key(struct kmem_tasks *tasks, u32 tid, u64 time, u32 *key)
{
	struct cached_task *ct = &tasks->cache[hash_32(tid, CACHE_BITS)];

	if (!ct->valid || ct->tid != tid || time < ct->from ||
	    time >= ct->until) {
		int err = find_task(tasks, ct, tid, time);

		if (err)
			return err;
	}
	*key = ct->key;
	return ct->filtered;
}

void kmem_tasks__forget(struct kmem_tasks *tasks, u32 tid)
{
	tasks->cache[hash_32(tid, CACHE_BITS)].valid = false;
}
