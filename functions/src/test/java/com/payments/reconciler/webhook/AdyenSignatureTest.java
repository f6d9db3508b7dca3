package com.payments.reconciler.webhook;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Adyen's HMAC over a notification item. The known answer is the public test vector Adyen's own libraries check
 * (key DFB1EB54..., payload {@code pspReference:originalReference:merchantAccount:reference:1000:EUR:EVENT:true}), so the
 * field order and the key's hex decoding are Adyen's, not ours. Known-bad proof: the same fields in another order (here
 * merchantReference before merchantAccountCode) do not give Adyen's signature ({@link #anotherFieldOrderIsNotAdyens}).
 */
class AdyenSignatureTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String VECTOR_KEY = "DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00";
    static final String VECTOR_SIGNATURE = "ipnxGCaUZ4l8TUW75a71/ghd2Fe5ffvX0pV4TLTntIc=";

    static ObjectNode vectorItem() {
        ObjectNode item = JSON.createObjectNode()
                .put("pspReference", "pspReference").put("originalReference", "originalReference")
                .put("merchantAccountCode", "merchantAccount").put("merchantReference", "reference")
                .put("eventCode", "EVENT").put("success", "true");
        item.putObject("amount").put("value", 1000).put("currency", "EUR");
        return item;
    }

    @Test
    void adyensPublishedVectorVerifies() {
        ObjectNode item = vectorItem();
        assertThat(AdyenSignature.dataToSign(item)).isEqualTo("pspReference:originalReference:merchantAccount:reference:1000:EUR:EVENT:true");
        AdyenSignature signature = new AdyenSignature(VECTOR_KEY);
        assertThat(signature.sign(item)).isEqualTo(VECTOR_SIGNATURE);
        item.putObject("additionalData").put("hmacSignature", VECTOR_SIGNATURE);
        assertThat(signature.verify(item)).isEqualTo(AdyenSignature.Verdict.VALID);
    }

    @Test
    void unsignedChangedAndWronglyKeyedItemsAreRefused() {
        ObjectNode item = vectorItem();
        AdyenSignature signature = new AdyenSignature(VECTOR_KEY);
        assertThat(signature.verify(item)).isEqualTo(AdyenSignature.Verdict.UNSIGNED);
        item.putObject("additionalData").put("hmacSignature", VECTOR_SIGNATURE);
        item.put("success", "false");
        assertThat(signature.verify(item)).isEqualTo(AdyenSignature.Verdict.FORGED);
        item.put("success", "true");
        assertThat(new AdyenSignature("00" + VECTOR_KEY.substring(2)).verify(item)).isEqualTo(AdyenSignature.Verdict.FORGED);
        ((ObjectNode) item.get("additionalData")).put("hmacSignature", "not base64 at all!");
        assertThat(signature.verify(item)).isEqualTo(AdyenSignature.Verdict.FORGED);
    }

    @Test
    void anotherFieldOrderIsNotAdyens() throws Exception {
        JsonNode item = vectorItem();
        String swapped = "pspReference:originalReference:reference:merchantAccount:1000:EUR:EVENT:true";
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(java.util.HexFormat.of().parseHex(VECTOR_KEY), "HmacSHA256"));
        String wrong = java.util.Base64.getEncoder().encodeToString(mac.doFinal(swapped.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(wrong).isNotEqualTo(VECTOR_SIGNATURE);
        assertThat(new AdyenSignature(VECTOR_KEY).sign(item)).isEqualTo(VECTOR_SIGNATURE);
    }

    @Test
    void aKeyThatIsNotHexIsRefusedWithoutQuotingIt() {
        assertThatThrownBy(() -> new AdyenSignature("not-a-hex-secret-zz"))
                .isInstanceOf(IllegalStateException.class).hasMessageNotContaining("not-a-hex-secret-zz");
    }
}
