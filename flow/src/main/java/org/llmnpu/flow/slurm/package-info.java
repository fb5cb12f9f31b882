/**
 * The Slurm executor: tasks submitted as job arrays ({@code sbatch --array}), polled with {@code squeue}, collected
 * from the result files the tasks write, failed tasks resubmitted as smaller arrays. No accounting database needed.
 */
package org.llmnpu.flow.slurm;
