package org.llmnpu.flow.dse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One point as the report shows it: the point, whether it finished, and what its result says.
 *
 * @param point   the sweep point
 * @param done    whether its result exists
 * @param cause   for a failed point, why (the executor's cause of its last attempt); empty when done
 * @param result  its {@code result.json}, or null when failed
 * @param onFront whether it is on the Pareto front of the measured objectives
 */
record PointRecord(SweepPoint point, boolean done, String cause, JsonNode result, boolean onFront) {
  /** The measured value of objective {@code o}, or null (not an objective of the sweep, not measured, failed). */
  Double objective(Objective o) {
    if (result == null) {
      return null;
    }
    JsonNode v = result.path("objectives").path(o.key);
    return v.isNumber() ? v.doubleValue() : null;
  }

  /** The point's wall time in its last run, s; null when failed. Not deterministic. */
  Double wallTimeS() {
    return result == null || !result.path("wallTimeS").isNumber() ? null : result.get("wallTimeS").doubleValue();
  }

  PointRecord onFront(boolean on) {
    return new PointRecord(point, done, cause, result, on);
  }

  Map<String, String> swept() {
    return point.swept();
  }
}
