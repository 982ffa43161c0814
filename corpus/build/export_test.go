package build

import (
	"triage/corpus/limits"
	"triage/corpus/shard"
)

// TasksDigest is tasksDigest, for the external tests.
var TasksDigest = tasksDigest

// Create is o's file creation, which the external tests replace to inject
// failures.
func Create(o *BuildOptions) *shard.CreateFunc { return &o.create }

// Hook is o's test hook ("tmp", "renamed", "manifest" with the shard).
func Hook(o *BuildOptions) *func(event string, s int) { return &o.hook }

// SetReference is setReference, for the external tests.
func (c *TaskCheck) SetReference(r limits.RefTime, l limits.TimeLimits) { c.setReference(r, l) }
