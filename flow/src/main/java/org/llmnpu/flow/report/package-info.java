/**
 * The whole-NPU report and {@code npu demo} as a job graph ({@link org.llmnpu.flow.report.NpuReportJobs}) on the
 * local job runner of {@link org.llmnpu.flow.graph}.
 */
package org.llmnpu.flow.report;
