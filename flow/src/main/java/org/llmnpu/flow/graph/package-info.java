/**
 * The toolkit's steps as a job graph: {@link org.llmnpu.flow.graph.Job}s with declared inputs and dependencies,
 * their results in the content-addressed cache, run by {@link org.llmnpu.flow.graph.JobRunner} on all local cores.
 */
package org.llmnpu.flow.graph;
