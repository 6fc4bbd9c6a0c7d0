package io.amqpservlet.connector.engine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SerialNumberTest {
    private static final int MAX = 0xFFFFFFFF; // 2^32 - 1

    @Test
    void additionWrapsPastTwoToThe32() {
        assertEquals(0, SerialNumber.add(MAX, 1));
        assertEquals(4, SerialNumber.add(MAX - 1, 6));
    }

    @Test
    void orderHoldsAcrossTheWrap() {
        assertTrue(SerialNumber.lessThan(MAX, 0), "2^32-1 precedes 0 after wrapping");
        assertTrue(SerialNumber.lessThan(MAX - 10, 5));
        assertFalse(SerialNumber.lessThan(5, MAX - 10));
        assertTrue(SerialNumber.lessThan(0x7FFFFFFE, 0x7FFFFFFF));
        assertTrue(SerialNumber.lessThan(0x7FFFFFFF, 0x80000000), "crossing the sign bit is ordinary");
        assertEquals(0, SerialNumber.compare(7, 7));
        assertTrue(SerialNumber.lessThanOrEqual(7, 7));
    }

    @Test
    void pairsExactlyHalfTheSpaceApartAreReportedAsPreceding() {
        assertEquals(-1, SerialNumber.compare(0, 0x80000000));
        assertEquals(-1, SerialNumber.compare(0x80000000, 0));
    }

    @Test
    void distanceIsUnsignedModuloTwoToThe32() {
        assertEquals(3, SerialNumber.distance(MAX - 1, 1));
        assertEquals(0xFFFFFFFFL, SerialNumber.distance(1, 0));
    }

    @Test
    void rejectsAdditionOutsideRfc1982Range() {
        assertThrows(IllegalArgumentException.class, () -> SerialNumber.add(0, -1));
    }
}
