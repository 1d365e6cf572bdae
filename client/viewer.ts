console.log("viewer");
