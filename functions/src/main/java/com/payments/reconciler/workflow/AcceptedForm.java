package com.payments.reconciler.workflow;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The accepted form of a closed input, said in the {@link InvalidInput} that names a field it does not accept (instead of
 * Jackson's list of property names), where the reason matters to whoever sent it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface AcceptedForm {
    String value();
}
