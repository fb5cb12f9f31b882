package org.llmnpu.sw.shadow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Scale buckets (nearest in log distance, clamped to the grid), shape buckets and the quantizer's saturation. */
class BucketsTest {
  @Test
  void aHeadTakesTheNearestScaleAndHeadsOffTheGridTakeItsEnd() {
    ScaleBuckets b = new ScaleBuckets(4, 2.0, 1.0);
    assertEquals(Math.pow(2, -1.5), b.scale(0), 1e-12);
    assertEquals(Math.pow(2, 1.5), b.scale(3), 1e-12);
    assertEquals(1, b.nearest(0.7));
    assertEquals(2, b.nearest(1.5));
    assertEquals(0, b.nearest(1e-6));
    assertEquals(3, b.nearest(1e6));
    assertEquals(0.25f, ScaleBuckets.dynamic().scaleFor(0.25f));
    assertEquals(-1, ScaleBuckets.dynamic().nearest(3));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new ScaleBuckets(4, 1.0, 1.0)).getMessage()
        .contains("scale step"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new ScaleBuckets(-1, 2.0, 1.0)).getMessage()
        .contains("bucket count"));
  }

  @Test
  void contextsPadToTheirShapeAndCodesSaturateAtTheBucketsRange() {
    ShapeBuckets s = new ShapeBuckets(64, 512);
    assertEquals(64, s.bucket(1));
    assertEquals(128, s.bucket(65));
    assertEquals(512, s.bucket(512));
    assertEquals(8, s.count());
    assertThrows(IllegalArgumentException.class, () -> s.bucket(513));
    assertThrows(IllegalArgumentException.class, () -> new ShapeBuckets(24, 512));
    assertEquals(127, HeadQuantizer.code(10f, 0.01f));
    assertEquals(-127, HeadQuantizer.code(-10f, 0.01f));
    assertEquals(2, HeadQuantizer.code(0.625f, 0.25f), "rint: 2.5 rounds to even");
    float[][] rows = {{0.5f, -1.27f}, {0.1f, 0.2f}};
    assertEquals(0.01f, HeadQuantizer.ownScale(rows, 0, 2), 1e-7f);
  }
}
