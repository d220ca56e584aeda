/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_KMEM_COUNT_TASKS_H
#define __PERF_KMEM_COUNT_TASKS_H

/*
 * The task behind each allocation, for perf kmem stat --pid, --tid,
 * --comm and the pid and comm sort keys: its process id and its command
 * name as it was when it allocated, from perf's thread tracking (the
 * COMM, FORK and EXIT records).  perf keeps each thread's names with the
 * time they began; a task that exec'ed is counted under its new name
 * from the time of the exec.  The answers are cached per thread id, so
 * that asking for every allocation costs little.
 */

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct intlist;
struct machine;
struct strlist;

/* How page rows are told apart by task, if they are (-s pid, -s comm). */
enum kmem_task_key {
	KMEM_TASK_NONE,
	KMEM_TASK_PID,		/* the process id */
	KMEM_TASK_COMM,		/* the command name, as the task had it then */
};

struct kmem_tasks_config {
	enum kmem_task_key	key;		/* what kmem_tasks__key() gives */
	/* Only these tasks' allocations; NULL: any.  Not owned. */
	struct intlist		*pids;
	struct intlist		*tids;
	struct strlist		*comms;
};

struct kmem_tasks;

/*
 * Follow the tasks of @machine, which perf's thread tracking keeps the
 * threads of and which must outlive the object, keyed and filtered as
 * @config says; NULL without memory.
 */
struct kmem_tasks *kmem_tasks__new(struct machine *machine,
				   const struct kmem_tasks_config *config);
void kmem_tasks__delete(struct kmem_tasks *tasks);

/**
 * kmem_tasks__key - the key of the task that ran an event
 * @tasks: the object
 * @tid: the thread id of the event's sample
 * @time: its time
 * @key: where the key goes: the pid, or the id of the command name
 *	(see kmem_tasks__comm()), or 0 with KMEM_TASK_NONE
 *
 * The events must come in time order, and each thread's COMM records
 * before its events that follow them.
 *
 * Return: 1 if the event is of a task the filters leave out, 0 if not,
 * -ENOMEM.
 */
int kmem_tasks__key(struct kmem_tasks *tasks, u32 tid, u64 time, u32 *key);

/* The command name of an id that kmem_tasks__key() gave. */
const char *kmem_tasks__comm(const struct kmem_tasks *tasks, u32 id);

/*
 * A COMM or FORK record of @tid was processed: what is cached of it may
 * have an end now.  Call it after perf's thread tracking took the record.
 */
void kmem_tasks__forget(struct kmem_tasks *tasks, u32 tid);

/* The hash and equality of perf's hashmaps keyed by a name (char *). */
size_t kmem_name_hash(long key, void *ctx);
bool kmem_name_equal(long a, long b, void *ctx);

#endif /* __PERF_KMEM_COUNT_TASKS_H */
