package io.amqpservlet.spring.sample;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ordinary Boot application, with nothing of AMQP in it but {@code amqp.servlet.port}: a controller with a GET,
 * a POST of a JSON body with validation, a path variable and a 404; Spring Security with one user, alice, for the
 * POST and {@code /whoami}.
 */
@SpringBootApplication
public class SampleApplication {
    /** The one user. */
    public static final String USER = "alice";
    /** Her password. */
    public static final String PASSWORD = "secret";

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(User.withUsername(USER).password("{noop}" + PASSWORD).roles("USER")
                .build());
    }

    @Bean
    SecurityFilterChain api(HttpSecurity http) {
        // A stateless JSON API: Basic for HTTP clients, no session, no CSRF token to fetch.
        return http.authorizeHttpRequests(requests -> requests
                        .requestMatchers("/whoami", "/orders").authenticated()
                        .anyRequest().permitAll())
                .httpBasic(basic -> { })
                .csrf(AbstractHttpConfigurer::disable)
                .build();
    }

    /** The body of a new order: validated. */
    public record NewOrder(@NotBlank String item, @Min(1) int quantity) {
    }

    /** An order. */
    public record Order(String id, String item, int quantity) {
    }

    @RestController
    static class Orders {
        private final Map<String, Order> orders = Map.of("1", new Order("1", "tea", 2));

        @GetMapping("/orders/{id}")
        Order order(@PathVariable String id) {
            Order order = orders.get(id);
            if (order == null) {
                throw new ResponseStatusException(HttpStatus.NOT_FOUND, "no order " + id);
            }
            return order;
        }

        @PostMapping("/orders")
        ResponseEntity<Order> create(@Valid @RequestBody NewOrder order, Principal user) {
            return ResponseEntity.status(HttpStatus.CREATED).header("x-created-by", user.getName())
                    .body(new Order(order.item() + "-" + order.quantity(), order.item(), order.quantity()));
        }

        /** A typed AMQP body (an amqp-value map) arrives here as JSON. */
        @PostMapping("/echo")
        Map<String, Object> echo(@RequestBody Map<String, Object> body) {
            Map<String, Object> answer = new LinkedHashMap<>(body);
            answer.put("seen", true);
            return answer;
        }

        @GetMapping("/whoami")
        Map<String, Object> whoami(Principal principal, Authentication authentication) {
            Map<String, Object> who = new LinkedHashMap<>();
            who.put("name", principal.getName());
            who.put("authorities", authentication.getAuthorities().stream().map(GrantedAuthority::getAuthority)
                    .sorted().toList());
            return who;
        }

        @GetMapping("/slow")
        String slow(@RequestParam long ms) throws InterruptedException {
            Thread.sleep(ms);
            return "slept " + ms;
        }

        @GetMapping("/hello")
        List<String> hello() {
            return List.of("hello", "over", "amqp");
        }
    }
}
