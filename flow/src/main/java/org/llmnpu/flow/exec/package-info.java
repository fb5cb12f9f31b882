/**
 * Executors for independent tasks: each task is one process with its own output directory, done when its result
 * file exists. {@code local} runs them on this machine's cores; {@code slurm} submits them as a job array.
 */
package org.llmnpu.flow.exec;
