package io.amqpservlet.client;

import org.junit.jupiter.api.Test;

import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class PemKeyMaterialTest {
    @Test
    void wrapsAPkcs1RsaKeyAsTheJdkEncodesItInPkcs8() throws Exception {
        for (int bits : new int[] {1024, 2048}) {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(bits);
            PrivateKey key = generator.generateKeyPair().getPrivate();
            byte[] pkcs8 = key.getEncoded();
            byte[] pkcs1 = octetStringOf(pkcs8); // what "BEGIN RSA PRIVATE KEY" holds
            byte[] wrapped = PemKeyMaterial.rsaPkcs1ToPkcs8(pkcs1);
            assertArrayEquals(pkcs8, wrapped, bits + "-bit key");
            assertEquals(key, KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(wrapped)));
        }
    }

    /** The contents of the OCTET STRING that ends a PKCS #8 PrivateKeyInfo without attributes (RFC 5208 §5). */
    private static byte[] octetStringOf(byte[] pkcs8) {
        int i = 1 + lengthBytes(pkcs8, 1); // outer SEQUENCE header
        i += 3; // version INTEGER 0
        i += 2 + (pkcs8[i + 1] & 0xff); // AlgorithmIdentifier SEQUENCE (short form)
        assertEquals(0x04, pkcs8[i]);
        int header = 1 + lengthBytes(pkcs8, i + 1);
        return Arrays.copyOfRange(pkcs8, i + header, pkcs8.length);
    }

    private static int lengthBytes(byte[] der, int at) {
        int first = der[at] & 0xff;
        return first < 0x80 ? 1 : 1 + (first & 0x7f);
    }
}
