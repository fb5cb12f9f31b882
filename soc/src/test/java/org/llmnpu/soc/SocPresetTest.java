package org.llmnpu.soc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SocPresetTest {
  @Test
  void everyFigureOfTheShippedPresetsCitesItsSource() {
    for (String name : new String[] {"sd8gen3", "lunar-lake"}) {
      SocPreset p = SocPreset.load(name);
      Map<String, Cited> figures = p.figures();
      assertTrue(figures.size() >= 20, name + " has " + figures.size() + " figures");
      figures.forEach((k, c) -> {
        assertFalse(c.source().isBlank(), name + " " + k);
        assertTrue(c.source().length() > 15, name + " " + k + " cites only '" + c.source() + "'");
      });
      assertTrue(p.gpu().isPresent(), name);
    }
  }

  @Test
  void aFigureWithoutSourceIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Cited(1.0, "GB/s", " "));
    assertTrue(e.getMessage().contains("no source"), e.getMessage());
  }

  @Test
  void anUnknownPresetNamesTheOptionAndTheAllowedValues() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SocPreset.load("sd888"));
    assertEquals("--preset: 'sd888' is not allowed; allowed: sd8gen3, lunar-lake, host", e.getMessage());
  }

  @Test
  void removingHostOverheadZeroesEveryHostTime() {
    HostCosts h = SocPreset.load("sd8gen3").withoutHostOverhead().host();
    assertEquals(0, h.submissionUs().value());
    assertEquals(0, h.perOpDispatchUs().value());
    assertEquals(0, h.commandStreamUs().value());
    assertEquals(0, h.driverSyncUs().value());
    assertEquals(0, h.pollSyncUs().value());
  }
}
