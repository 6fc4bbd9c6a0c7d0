package io.amqpservlet.gateway;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

/** What an I/O failure means, for a person: its message, with the JDK's terse file exceptions spelled out. */
final class IoMessage {
    private IoMessage() {
    }

    static String of(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof CharacterCodingException) {
            return "not UTF-8 text";
        }
        return e.getMessage() == null ? "I/O error" : e.getMessage();
    }
}
